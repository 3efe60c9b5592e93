/**
 * PostgreSQL going away under a running server (a restart, `pg_terminate_backend`, a dropped
 * network) ends every pooled connection. An idle one that fails makes its pool emit 'error': unheard,
 * that ends the process. The server must instead log a warning, keep serving, and open new
 * connections on the next queries, for reads, writes and counts (their pool of their own).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { Fixtures } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { logLines } from '../helpers/log-lines.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

if (DIALECTS.includes('postgres')) {
  describe('PostgreSQL connections terminated under a running server (postgres)', () => {
    let server: TestServer;
    let token: string;
    let projectId: number;
    let aliceId: number;
    const { stream, lines: warnings } = logLines<{ msg: string; err?: { message: string } }>();

    before(async () => {
      server = await startServer({
        dialect: 'postgres',
        config: { logLevel: 'warn' },
        logStream: stream,
        seed: async (store) => {
          const f = new Fixtures(store);
          aliceId = (await f.user('alice')).id;
          projectId = (await f.project('acme/api', aliceId, 'private')).id;
          await f.member(projectId, aliceId, 40);
          token = await f.token(aliceId);
          for (let i = 0; i < 5; i++) {
            await f.event({ projectId, authorId: aliceId, action: 'created', createdAt: i });
          }
        },
      });
    });
    after(() => server.close());

    /** The backends behind the server's pools: many reads held open at once, one per connection. */
    async function backends(): Promise<number[]> {
      const pids = new Set<number>();
      const { db, conn } = server.store;
      const held = sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`;
      const runs = [
        ...Array.from({ length: 10 }, () => held.execute(db)),
        ...Array.from({ length: 4 }, () => held.execute(conn.prepared)),
      ];
      for (const { rows } of await Promise.all(runs)) pids.add(rows[0]!.pid);
      return [...pids];
    }

    it('a terminated idle connection is logged, and the next requests read, write and count again', async () => {
      // A first read of a user listing: its count runs on the counts' pool.
      const listing = `/api/v4/users/${aliceId}/events`;
      const first = await get(server.url, listing, token);
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('x-total'), '5');

      const pids = await backends();
      assert.ok(pids.length >= 2, `the pools hold several connections: ${pids.join(', ')}`);
      const admin = new pg.Client({ connectionString: process.env.PULSEGATE_TEST_POSTGRES_URL });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ ended: boolean }>(
          'SELECT pg_terminate_backend(pid) AS ended FROM unnest($1::int[]) AS pid',
          [pids],
        );
        assert.ok(rows.every((row) => row.ended));
      } finally {
        await admin.end();
      }
      // Each idle connection hears of its end and leaves its pool, with a warning.
      const deadline = Date.now() + 5_000;
      while (warnings.length < pids.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(warnings.length, pids.length, JSON.stringify(warnings));
      for (const warning of warnings) {
        assert.equal(
          warning.msg,
          'an idle database connection failed; the next query opens another',
        );
        assert.match(warning.err!.message, /terminating connection due to administrator command/);
      }

      // A write, then a listing met for the first time: its count and walk on new connections.
      const created = await fetch(`${server.url}/api/v4/projects/${projectId}/issues`, {
        method: 'POST',
        headers: { 'private-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'After the restart' }),
      });
      assert.equal(created.status, 201);
      const after = await get(server.url, `${listing}?action=created`, token);
      assert.equal(after.status, 200);
      assert.equal(after.headers.get('x-total'), '6');
      assert.equal(
        (after.body as Array<{ target_title: string }>)[0]!.target_title,
        'After the restart',
      );
    });
  });
}
