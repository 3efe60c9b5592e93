/**
 * The warm-up `serve` runs before listening (http/warm-up.ts): every request it sends is answered
 * as it should be (200; 401 for its unknown token: a broken URL or GraphQL query would leave code
 * cold, and say so), none of them shows in the request log or metrics or spends the rate limit,
 * and requests from clients still do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { warmUp } from '../../src/http/warm-up.js';
import { Fixtures } from '../helpers/fixtures.js';
import { logLines } from '../helpers/log-lines.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`warm-up (${dialect})`, () => {
    let server: TestServer;
    let projectId: number;
    /** The server's JSON log lines (at info: every request is logged). */
    const { stream, lines } = logLines<{
      msg?: string;
      req?: { url?: string; remoteAddress?: string };
    }>();

    before(async () => {
      server = await startServer({
        dialect,
        // Far below what the warm-up sends: its requests must not spend (or meet) the limit.
        config: { rateLimit: 10, logLevel: 'info' },
        logStream: stream,
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          projectId = (await f.project('acme/api', alice.id, 'public')).id;
          await f.project('acme/secret', alice.id, 'private');
          for (let i = 1; i <= 30; i++) {
            await f.event({ projectId, authorId: alice.id, action: 'pushed', createdAt: i });
          }
        },
      });
    });
    after(() => server.close());

    async function requestsCounted(): Promise<number> {
      const { body } = await server.services.metrics.render();
      return body
        .split('\n')
        .filter((line) => line.startsWith('pulsegate_http_requests_total{'))
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
    }

    it('reads the public project and its author through REST and GraphQL, every answer as expected, none counted or logged', async () => {
      const before = await requestsCounted();
      const logged = lines.length;
      // One public project: its first listing to find authors, then per round eight project
      // listings, one GraphQL query, three listings of its one author and one unknown token (401).
      // Each round's listings are its own (a repeated one would find its count kept and leave the
      // code of a first request cold): only the GraphQL query, the token and the first listing's
      // URL (asked again in round one) repeat.
      assert.deepEqual(await warmUp(server.app, server.services, () => false, { rounds: 3 }), {
        sent: 1 + 3 * 13,
        expected: 1 + 3 * 13,
        distinct: 3 * 11 + 2,
      });
      assert.equal(await requestsCounted(), before);
      assert.deepEqual(lines.slice(logged), []);
      const response = await fetch(`${server.url}/api/v4/projects/${projectId}/events`);
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      assert.equal(await requestsCounted(), before + 1);
      // A client's request is logged as before, in one line.
      assert.deepEqual(
        lines.slice(logged).map((l) => [l.msg, l.req?.url]),
        [['request completed', `/api/v4/projects/${projectId}/events`]],
      );
    });

    /** The server's app as the warm-up uses it (only `inject`), counting what reaches it. */
    function countingApp() {
      const app = {
        injected: 0,
        inject: (options: InjectOptions) => {
          app.injected++;
          return server.app.inject(options);
        },
      };
      return app;
    }

    it('sends no request after the server starts stopping (a signal during the rounds)', async () => {
      const app = countingApp();
      const result = await warmUp(
        app as unknown as FastifyInstance,
        server.services,
        () => app.injected >= 5,
      );
      assert.equal(app.injected, 5);
      // The first round's first listing is the project's first listing again.
      assert.deepEqual(result, { sent: 5, expected: 5, distinct: 4 });
    });

    it('sends nothing once the server is stopping (a signal during start-up)', async () => {
      const app = countingApp();
      const result = await warmUp(app as unknown as FastifyInstance, server.services, () => true);
      assert.equal(app.injected, 0);
      assert.deepEqual(result, { sent: 0, expected: 0, distinct: 0 });
    });
  });
}
