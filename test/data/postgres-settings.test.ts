/**
 * PostgreSQL settings the store relies on for short statements (store/database.ts, migration 017):
 * its connections run without JIT and parallel workers, and so do migration 016's insert checks in
 * any session. With them, an append on 1,000,000 events waited 55 ms for two parallel workers to
 * count the events above it (zero); without, 1.9 ms.
 *
 * Catches: the connection options dropped, or the functions' settings (a hand-typed insert, an
 * import over another tool, would pay the 55 ms again).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type Store, openStore } from '../../src/store/store.js';
import { DIALECTS, type TestDatabase, createTestDatabase } from '../helpers/server.js';

if (DIALECTS.includes('postgres')) {
  describe('PostgreSQL runs our statements without JIT or parallel workers', () => {
    let database: TestDatabase;
    let store: Store;

    before(async () => {
      database = await createTestDatabase('postgres');
      store = await openStore(database.url);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    it('on every connection of the pool', async () => {
      // Several at once, so that more than one connection answers.
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          sql<{
            jit: string;
            workers: string;
          }>`SELECT current_setting('jit') AS jit,
               current_setting('max_parallel_workers_per_gather') AS workers, pg_sleep(0.05)`.execute(
            store.db,
          ),
        ),
      );
      for (const { rows } of answers) {
        assert.deepEqual({ jit: rows[0]!.jit, workers: rows[0]!.workers }, { jit: 'off', workers: '0' });
      }
    });

    it('in the insert checks of events and push payloads, whatever the session', async () => {
      const { rows } = await sql<{ proname: string; proconfig: string[] }>`
        SELECT proname, proconfig FROM pg_proc
        WHERE pronamespace = current_schema()::regnamespace
          AND proname IN ('events_listing_version_insert', 'push_event_payloads_listing_version_insert')
        ORDER BY proname`.execute(store.db);
      assert.deepEqual(
        rows.map((r) => [r.proname, [...r.proconfig].sort()]),
        ['events', 'push_event_payloads'].map((t) => [
          `${t}_listing_version_insert`,
          ['enable_seqscan=off', 'jit=off', 'max_parallel_workers_per_gather=0'],
        ]),
      );
    });
  });
}
