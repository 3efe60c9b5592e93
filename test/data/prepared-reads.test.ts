/**
 * PostgreSQL runs row reads and listing counts as named statements (store/database.ts
 * `prepareRowReads`, store/plan-once.ts): planned once per connection. They must survive what named statements break on: a table migrated by another
 * process under them ("cached plan must not change result type"), and migrations run on the same
 * pool (prepared only outside transactions).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { PLAN_ONCE } from '../../src/store/plan-once.js';
import { type Store, openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestDatabase, createTestDatabase } from '../helpers/server.js';

if (DIALECTS.includes('postgres')) {
  describe('prepared row reads (postgres)', () => {
    let database: TestDatabase;
    let store: Store;
    let alice: number;

    before(async () => {
      database = await createTestDatabase('postgres');
      store = await openStore(database.url);
      alice = (await new Fixtures(store).user('alice')).id;
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    /** Many reads at once, so that most of the pool's connections run (and prepare) the read. */
    const readMany = () =>
      Promise.all(
        Array.from({ length: 30 }, () =>
          store.db.selectFrom('users').selectAll().where('id', '=', alice).executeTakeFirstOrThrow(),
        ),
      );

    it('a row read is prepared on its connection; a listing walk is not', async () => {
      const prepared = await store.db.connection().execute(async (conn) => {
        await conn.selectFrom('users').selectAll().where('id', '=', alice).execute();
        await conn.selectFrom('events').select('id').where('project_id', '=', 1).execute();
        const { rows } = await sql<{ statement: string }>`SELECT statement
          FROM pg_prepared_statements WHERE statement NOT LIKE '%pg_prepared_statements%'`.execute(
          conn,
        );
        return rows.map((r) => r.statement);
      });
      assert.ok(prepared.includes('select * from "users" where "id" = $1'), String(prepared));
      assert.ok(!prepared.some((text) => text.includes('"events"')), String(prepared));
    });

    it('a listing count runs on the plan-once pool, planned once per connection', async () => {
      const q = {
        source: { kind: 'author' as const, userId: alice },
        filter: { sort: 'desc' as const },
        viewer: { userId: alice, admin: false },
        upTo: 1,
      };
      // One after the other: the pool hands out the connection released last, every time.
      for (let i = 0; i < 3; i++) assert.equal(await store.events.count(q, 10_000), 0);
      const prepared = await store.conn.planOnce!.connection().execute(async (conn) => {
        const { rows } = await sql<{ statement: string; generic: number; custom: number }>`
          SELECT statement, generic_plans AS generic, custom_plans AS custom
          FROM pg_prepared_statements WHERE statement LIKE ${PLAN_ONCE + '%'}`.execute(conn);
        return rows;
      });
      assert.equal(prepared.length, 1, JSON.stringify(prepared));
      // The whole count in one statement: the tallies, what confidentiality hides, and the walk of
      // the events above the reader's head.
      assert.match(prepared[0]!.statement, /"event_tallies".*"confidential_tallies".*"events"/s);
      // Its one generic plan ran all three times; the main pool would have planned each run.
      assert.deepEqual(
        { generic: Number(prepared[0]!.generic), custom: Number(prepared[0]!.custom) },
        { generic: 3, custom: 0 },
      );
    });

    it('a table changed by another process under a prepared read is read again, with its new shape', async () => {
      await readMany();
      const url = new URL(database.url);
      const schema = url.searchParams.get('schema')!;
      url.searchParams.delete('schema');
      const other = new pg.Client({ connectionString: url.toString() });
      await other.connect();
      try {
        await other.query(`ALTER TABLE ${other.escapeIdentifier(schema)}.users ADD COLUMN probe int DEFAULT 7`);
      } finally {
        await other.end();
      }
      const rows = await readMany();
      for (const row of rows) assert.equal((row as unknown as { probe: number }).probe, 7);
      // And the next reads too (unnamed from now on where the prepared one broke).
      assert.equal(((await readMany())[0] as unknown as { probe: number }).probe, 7);
    });
  });
}
