/**
 * PostgreSQL: a newest-first page touches only the partitions it needs (issue 34). Planning an
 * unbounded walk over every partition below the head cost more than running it at ten million
 * events, so a newest-first walk is tried over the newest PARTITION_IDS ids first and runs whole
 * only when those do not hold its rows (store/events/walks.ts `recentFirst`). Checked here: the
 * pages on both sides of that line equal the plain answer, and a page the recent ids hold is read
 * while another connection holds the oldest partition locked (a statement planned over it would
 * wait for that lock: PostgreSQL locks at planning the partitions it does not prune).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { PARTITION_IDS } from '../../src/store/events/partitions.js';
import type { EventQuery } from '../../src/store/events.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type TestServer, startServer } from '../helpers/server.js';

const postgres = process.env.PULSEGATE_TEST_POSTGRES_URL ? describe : describe.skip;

/** Ids per partition: 100 in the first, 100 in the second, 30 in the third (newest). */
const IDS = [
  ...Array.from({ length: 100 }, (_, i) => 1 + i),
  ...Array.from({ length: 100 }, (_, i) => PARTITION_IDS + 1 + i),
  ...Array.from({ length: 30 }, (_, i) => 2 * PARTITION_IDS + 1 + i),
];

postgres('newest-first walks over partitions (postgres)', () => {
  let server: TestServer;
  let project: { id: number; visibility: string };
  const newestFirst = [...IDS].sort((a, b) => b - a);

  before(async () => {
    server = await startServer({ dialect: 'postgres' });
    const f = new Fixtures(server.store);
    const owner = (await f.user('owner')).id;
    project = { id: (await f.project('owner/walked', owner, 'public')).id, visibility: 'public' };
    const { db } = server.store;
    await server.store.events.ensurePartitions({ from: 1, through: 3 * PARTITION_IDS });
    await db
      .insertInto('events')
      .values(
        IDS.map((id) => ({
          id,
          project_id: project.id,
          author_id: owner,
          action: 1,
          target_type: null,
          target_id: null,
          issue_id: null,
          created_at: Date.UTC(2026, 0, 1) + id,
        })),
      )
      .execute();
    await sql`SELECT setval(pg_get_serial_sequence('events', 'id'), ${2 * PARTITION_IDS + 30})`.execute(
      db,
    );
  });
  after(() => server.close());

  const query = (): EventQuery => ({
    source: { kind: 'project', projectId: project.id, visibility: 'public', accessLevel: null },
    filter: { sort: 'desc' },
    viewer: null,
    upTo: 2 * PARTITION_IDS + 30,
  });

  /** The page's ids, read in a transaction of its own that waits at most a second for a lock. */
  async function page(offset: number, limit: number): Promise<number[]> {
    return server.store.transaction(async (tx) => {
      await sql`SET LOCAL lock_timeout = '1s'`.execute(tx.db);
      const rows = await tx.events.list(query(), { kind: 'offset', offset, limit });
      return rows.map((r) => r.id);
    });
  }

  /**
   * `read` while another connection holds the oldest partition locked: a statement planned over
   * that partition waits for its lock (and fails after a second); one pruned of it at planning
   * never asks for it.
   */
  async function withOldestLocked<T>(read: () => Promise<T>): Promise<T> {
    return server.store.db.connection().execute(async (locker) => {
      await sql`BEGIN`.execute(locker);
      try {
        await sql`LOCK TABLE events_0 IN ACCESS EXCLUSIVE MODE`.execute(locker);
        return await read();
      } finally {
        await sql`ROLLBACK`.execute(locker);
      }
    });
  }

  it('a page the newest ids hold is planned and read without the oldest partition', async () => {
    for (const [offset, limit] of [
      [0, 20],
      [20, 20],
      [40, 20],
      [80, 20],
    ] as const) {
      const ids = await withOldestLocked(() => page(offset, limit));
      assert.deepEqual(ids, newestFirst.slice(offset, offset + limit), `offset ${offset}`);
    }
    // The lock is felt: a page that needs the oldest partition waits for it, and gives up.
    await assert.rejects(
      withOldestLocked(() => page(200, 20)),
      /lock timeout/,
    );
  });

  it('a page past them walks on, with the same rows as one walk', async () => {
    // The newest PARTITION_IDS ids below the top hold the 30 newest and 70 of the second.
    for (const [offset, limit] of [
      [90, 20],
      [100, 20],
      [125, 20],
      [190, 40],
      [0, 230],
      [225, 20],
    ] as const) {
      const ids = await page(offset, limit);
      assert.deepEqual(ids, newestFirst.slice(offset, offset + limit), `offset ${offset}`);
    }
  });

  it('checkpoints find the same ids on both sides of the line', async () => {
    for (const skip of [0, 50, 99, 100, 150, 229, 230]) {
      assert.equal(
        await server.store.events.idAt(query(), null, skip),
        newestFirst[skip] ?? null,
        `skip ${skip}`,
      );
    }
  });
});
