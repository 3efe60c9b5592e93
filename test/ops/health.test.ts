import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { call } from '../helpers/http.js';
import { HealthService } from '../../src/services/health.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { openStore } from '../../src/store/store.js';
import { DIALECTS, type TestServer, createTestDatabase, startServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`health, liveness and readiness (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect });
    });
    after(() => server.close());

    for (const path of ['/-/health', '/-/liveness']) {
      it(`${path} answers 200 {"status":"ok"}`, async () => {
        const res = await call(server.url, path);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(res.text, '{"status":"ok"}');
      });
    }

    it('/-/readiness answers 200 with one entry per check when the database is current', async () => {
      const res = await call(server.url, '/-/readiness');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.deepEqual(res.body, {
        status: 'ok',
        db_check: [{ status: 'ok' }],
        migrations_check: [{ status: 'ok' }],
      });
    });

    it('/-/readiness answers 503 naming the pending migration when one is missing', async () => {
      const last = await sql<{
        name: string;
      }>`select name from kysely_migration order by name desc limit 1`.execute(server.store.db);
      const name = last.rows[0]!.name;
      await sql`delete from kysely_migration where name = ${name}`.execute(server.store.db);
      try {
        const res = await call(server.url, '/-/readiness');
        assert.equal(res.status, 503);
        assert.deepEqual(res.body, {
          status: 'failed',
          db_check: [{ status: 'ok' }],
          migrations_check: [{ status: 'failed', message: `pending migrations: ${name}` }],
        });
        // Liveness does not depend on the database.
        assert.equal((await call(server.url, '/-/liveness')).status, 200);
      } finally {
        await sql`insert into kysely_migration (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(
          server.store.db,
        );
      }
      assert.equal((await call(server.url, '/-/readiness')).status, 200);
    });
  });

  describe(`readiness of a database never migrated (${dialect})`, () => {
    it('names every migration as pending, oldest first', async () => {
      const database = await createTestDatabase(dialect);
      const store = await openStore(database.url, { migrate: false });
      try {
        // Catches a check that mistakes the missing bookkeeping table for "nothing pending", or
        // fails on it: a new deployment's readiness must say what `pulsegate migrate` will do.
        assert.deepEqual(
          await store.pendingMigrations(),
          MIGRATIONS.map((m) => m.name),
        );
        const ready = await new HealthService(store).readiness();
        assert.equal(ready.ok, false);
        assert.match(ready.checks.migrations_check.message!, /^pending migrations: 001_/);
      } finally {
        await store.close();
        await database.drop();
      }
    });
  });

  describe(`readiness with the database gone (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect });
    });
    after(async () => {
      await server.app.close().catch(() => {});
      await server.close().catch(() => {});
    });

    it('answers 503 with db_check failed, and never the driver text or URL', async () => {
      await server.store.close();
      const res = await call(server.url, '/-/readiness');
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, {
        status: 'failed',
        db_check: [{ status: 'failed', message: 'database unreachable' }],
        migrations_check: [{ status: 'failed', message: 'database unreachable' }],
      });
      assert.equal((await call(server.url, '/-/liveness')).status, 200);
    });
  });
}

if (DIALECTS.includes('postgres')) {
  describe('readiness bounds its select 1 (postgres)', () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect: 'postgres' });
    });
    after(() => server.close());

    it('answers 503 "timed out" within the bound while every pooled connection is busy', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const holders = Array.from({ length: 10 }, () =>
        server.store.db.connection().execute(async () => held),
      );
      try {
        const started = Date.now();
        const res = await call(server.url, '/-/readiness');
        const took = Date.now() - started;
        assert.equal(res.status, 503);
        assert.deepEqual(res.body, {
          status: 'failed',
          db_check: [{ status: 'failed', message: 'database check timed out after 2000 ms' }],
          migrations_check: [{ status: 'failed', message: 'database unreachable' }],
        });
        assert.ok(took >= 1900 && took < 5000, `took ${took} ms`);
      } finally {
        release();
        await Promise.all(holders);
      }
    });
  });
}
