/**
 * PostgreSQL runs row reads and listing counts as named statements on the `prepared` instance
 * (store/dialects.ts `NamedStatementsDialect`): planned once per connection. They must survive a
 * table migrated by another process under them ("cached plan must not change result type").
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
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
          store.conn.prepared
            .selectFrom('users')
            .selectAll()
            .where('id', '=', alice)
            .executeTakeFirstOrThrow(),
        ),
      );

    /** The statements prepared on the connections of `db`, and how often each was planned. */
    async function preparedOn(db: Store['db']) {
      return db.connection().execute(async (conn) => {
        const { rows } = await sql<{ statement: string; generic: number; custom: number }>`
          SELECT statement, generic_plans AS generic, custom_plans AS custom
          FROM pg_prepared_statements`.execute(conn);
        return rows.map((r) => ({ ...r, generic: Number(r.generic), custom: Number(r.custom) }));
      });
    }

    it('a user looked up by id is a prepared read; a listing walk is not', async () => {
      // Uncached: a store of its own, whose row cache has never seen the user.
      const other = await openStore(database.url, { migrate: false });
      try {
        assert.equal((await other.users.byId(alice))?.username, 'alice');
        await other.events.list(
          {
            source: { kind: 'project', projectId: 1, visibility: 'public', accessLevel: null },
            filter: { sort: 'desc' },
            viewer: null,
          },
          { kind: 'offset', offset: 0, limit: 20 },
        );
        const prepared = (await preparedOn(other.conn.prepared)).map((r) => r.statement);
        assert.ok(prepared.includes('select * from "users" where "id" = $1'), String(prepared));
        assert.ok(!prepared.some((text) => text.includes('from "events"')), String(prepared));
        assert.deepEqual(await preparedOn(other.db), []);
      } finally {
        await other.close();
      }
    });

    it('the change feed is a prepared read on one generic plan (read at every move of the head)', async () => {
      const other = await openStore(database.url, { migrate: false });
      try {
        // One connection in the prepared pool at a time here: each read finds the statement there.
        for (let i = 0; i < 3; i++) await other.events.changes(0, 1_000 + i);
        const feed = (await preparedOn(other.conn.prepared)).filter((r) =>
          r.statement.startsWith('select "id", "project_id", "author_id", "action", "target_type" from "events"'),
        );
        assert.equal(feed.length, 1, JSON.stringify(feed));
        assert.equal(feed[0]!.custom, 0);
        assert.ok(feed[0]!.generic >= 1, JSON.stringify(feed));
      } finally {
        await other.close();
      }
    });

    it('a listing count is a prepared read, planned once per connection', async () => {
      const q = {
        source: { kind: 'author' as const, userId: alice },
        filter: { sort: 'desc' as const },
        viewer: { userId: alice, admin: false },
        upTo: 1,
      };
      // One after the other: the pool hands out the connection released last, every time.
      for (let i = 0; i < 3; i++) assert.equal(await store.events.count(q, 10_000), 0);
      const prepared = (await preparedOn(store.conn.prepared)).filter((r) =>
        r.statement.includes('"event_tallies"'),
      );
      assert.equal(prepared.length, 1, JSON.stringify(prepared));
      // The whole count in one statement: the tallies, what confidentiality hides, and the walk of
      // the events above the reader's head.
      assert.match(prepared[0]!.statement, /"event_tallies".*"confidential_tallies".*"events"/s);
      // Its one generic plan ran all three times; the main pool would have planned each run.
      assert.deepEqual(
        { generic: prepared[0]!.generic, custom: prepared[0]!.custom },
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
      // And the next reads too (prepared again, under a new name, where the old one broke).
      assert.equal(((await readMany())[0] as unknown as { probe: number }).probe, 7);
    });
  });
}
