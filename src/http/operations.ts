/**
 * GitLab's operations endpoints: `/-/health` (the process answers), `/-/liveness` (same, for an
 * orchestrator's liveness probe: never the database, so a database outage does not restart every
 * process) and `/-/readiness` (the database answers a bounded `select 1` and carries every
 * migration), 503 when a check fails. Bodies follow GitLab's: `{"status":"ok","db_check":[…]}`.
 * `/-/metrics`: Prometheus metrics, only for the addresses in `PULSEGATE_METRICS_ALLOW`.
 */
import { BlockList, isIPv4 } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import { sendJson } from './json.js';

/** The configured allow list (`PULSEGATE_METRICS_ALLOW`) as a matcher of remote addresses. */
export function addressMatcher(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address) => {
    // A server bound to `::` sees IPv4 clients as IPv4-mapped IPv6 addresses.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped) return list.check(mapped, 'ipv4');
    return list.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
  };
}

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

    // Prometheus's text format, for the configured addresses only; anyone else sees no such page.
    const allowed = addressMatcher(services.config.metricsAllow);
    app.get('/-/metrics', async (request, reply) => {
      if (!allowed(request.socket.remoteAddress ?? '')) {
        return sendJson(reply, 404, { message: '404 Not Found' });
      }
      let scraped: { contentType: string; body: string };
      try {
        scraped = await services.metrics.render();
      } catch (error) {
        // With several workers a scrape needs all of them (cli/workers.ts): one that does not
        // answer in time fails this scrape, which Prometheus records, rather than a partial sum.
        request.log.warn({ err: error }, 'metrics: the scrape could not be gathered');
        return sendJson(reply, 503, { message: '503 Service Unavailable' });
      }
      return reply.code(200).header('content-type', scraped.contentType).send(scraped.body);
    });
  };
}
