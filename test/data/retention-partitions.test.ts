/**
 * Retention on PostgreSQL (services/retention.ts over store/events/partitions.ts): a run drops the
 * partitions whose every event is older than the window whole, before it deletes what is left of
 * the window row by row, and both leave the tallies as a count from scratch gives them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { RetentionService } from '../../src/services/retention.js';
import { PARTITION_IDS } from '../../src/store/events/partitions.js';
import { type Store, openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type TestDatabase, createTestDatabase } from '../helpers/server.js';

const postgres = process.env.PULSEGATE_TEST_POSTGRES_URL ? describe : describe.skip;
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 28);

postgres('retention on PostgreSQL drops whole partitions first', () => {
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

  const count = async (where = sql`true`) =>
    Number(
      (await sql<{ n: number }>`SELECT count(*) AS n FROM events WHERE ${where}`.execute(store.db))
        .rows[0]!.n,
    );

  it('takes the expired partitions whole, then the older rows of the next one, tallies exact', async () => {
    const f = new Fixtures(store);
    const alice = await f.user('alice');
    const project = await f.project('acme/api', alice.id, 'public');
    const append = (createdAt: number) =>
      store.events.append({
        project_id: project.id,
        author_id: alice.id,
        action: 1,
        target_type: null,
        target_id: null,
        issue_id: null,
        created_at: createdAt,
      });
    const before = await count();
    for (let i = 0; i < 5; i++) await append(NOW - 400 * DAY + i);
    // The next ids go to the second range: three more old events there, and two within the window.
    await sql`SELECT setval(pg_get_serial_sequence('events', 'id'), ${PARTITION_IDS})`.execute(
      store.db,
    );
    await store.events.ensurePartitions();
    for (let i = 0; i < 3; i++) await append(NOW - 300 * DAY + i);
    for (let i = 0; i < 2; i++) await append(NOW - DAY / 2 + i);
    const old = await count(sql`created_at < ${NOW - 90 * DAY}`);
    assert.equal(old, before + 8);

    const clock = { now: () => NOW };
    const retention = new RetentionService(store, clock, { amount: 90, unit: 'd' }, 2);
    const run = await retention.pruneAll();

    assert.equal(run.events, old);
    assert.equal(await count(sql`created_at < ${NOW - 90 * DAY}`), 0);
    assert.equal(await count(), before + 10 - old);
    const names = (await store.events.partitions()).map((p) => p.name);
    assert.ok(!names.includes('events_0'), `the first range is dropped whole: ${names.join()}`);
    assert.ok(names.includes(`events_${PARTITION_IDS}`), 'the range holding new events stays');
    // Two old rows a batch in the second range: two batches, then one that finds the last.
    assert.equal(run.batches, 2);
    const fromScratch = await sql<{ n: number }>`
      SELECT count(*) AS n FROM events WHERE project_id = ${project.id}`.execute(store.db);
    const kept = await sql<{ n: number }>`
      SELECT coalesce(sum(n), 0) AS n FROM event_tallies WHERE project_id = ${project.id}`.execute(
      store.db,
    );
    assert.equal(Number(kept.rows[0]!.n), Number(fromScratch.rows[0]!.n));
  });
});
