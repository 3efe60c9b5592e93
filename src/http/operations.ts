/**
 * GitLab's operations endpoints: `/-/health` (the process answers), `/-/liveness` (same, for an
 * orchestrator's liveness probe: never the database, so a database outage does not restart every
 * process) and `/-/readiness` (the database answers a bounded `select 1` and carries every
 * migration), 503 when a check fails. Bodies follow GitLab's: `{"status":"ok","db_check":[…]}`.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import { sendJson } from './json.js';

export function operationsEndpoints(services: Services) {
  return async (app: FastifyInstance) => {
    app.get('/-/health', async (_request, reply) => sendJson(reply, 200, { status: 'ok' }));
    app.get('/-/liveness', async (_request, reply) => sendJson(reply, 200, { status: 'ok' }));
    app.get('/-/readiness', async (_request, reply) => {
      const { ok, checks } = await services.health.readiness();
      return sendJson(reply, ok ? 200 : 503, {
        status: ok ? 'ok' : 'failed',
        db_check: [checks.db_check],
        migrations_check: [checks.migrations_check],
      });
    });
  };
}
