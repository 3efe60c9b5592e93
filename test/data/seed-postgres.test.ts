/**
 * A synthetic seed on PostgreSQL leaves the database exactly as the live code expects it. The seed
 * sets the per-statement tally triggers aside and counts the tallies once at the end
 * (store/bulk-load.ts), and makes the partitions of its ids before it loads: the seed here crosses
 * a partition boundary, and the tallies, partitions, sequence, counters and a listing are checked
 * against the events themselves, then a plain insert afterwards must be tallied by the triggers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { SeedService } from '../../src/data/seed.js';
import { systemClock } from '../../src/services/clock.js';
import { PARTITION_IDS, partitions } from '../../src/store/events/partitions.js';
import { get } from '../helpers/http.js';
import { type TestServer, startServer } from '../helpers/server.js';

const postgres = process.env.PULSEGATE_TEST_POSTGRES_URL ? describe : describe.skip;

/** The seed's events start this far below the first partition boundary and cross it. */
const BELOW_BOUNDARY = 20_000;
const EVENTS = 30_000;

/** Rows of `query` as sorted text lines, to compare whole tables with a recount. */
async function lines(db: Kysely<unknown>, query: string): Promise<string[]> {
  const { rows } = await sql<{ row: string }>`SELECT t::text AS row FROM (${sql.raw(query)}) t
    ORDER BY 1`.execute(db);
  return rows.map((r) => r.row);
}

const TARGET = "coalesce(target_type, '')";

/** Each tally table as kept, and as counted from the events and issues now. */
const TALLIES: Array<[name: string, kept: string, recount: string]> = [
  [
    'event_tallies',
    'SELECT project_id, author_id, action, target_type, n FROM event_tallies WHERE n <> 0',
    `SELECT project_id, author_id, action, ${TARGET}, count(*) FROM events
     GROUP BY project_id, author_id, action, ${TARGET}`,
  ],
  [
    'issue_event_tallies',
    `SELECT issue_id, project_id, author_id, action, target_type, n FROM issue_event_tallies
     WHERE n <> 0`,
    `SELECT issue_id, project_id, author_id, action, ${TARGET}, count(*) FROM events
     WHERE issue_id IS NOT NULL GROUP BY issue_id, project_id, author_id, action, ${TARGET}`,
  ],
  [
    'confidential_tallies',
    'SELECT project_id, author_id, action, target_type, n FROM confidential_tallies WHERE n <> 0',
    `SELECT e.project_id, e.author_id, e.action, coalesce(e.target_type, ''), count(*)
     FROM events e JOIN issues i ON i.id = e.issue_id AND i.project_id = e.project_id
     WHERE i.confidential = 1 GROUP BY e.project_id, e.author_id, e.action, 4`,
  ],
];

async function assertTalliesExact(db: Kysely<unknown>, when: string): Promise<void> {
  for (const [name, kept, recount] of TALLIES) {
    const expected = await lines(db, recount);
    assert.ok(expected.length > 0, `${name}: the recount is not empty (${when})`);
    assert.deepEqual(await lines(db, kept), expected, `${name} equals a recount (${when})`);
  }
}

async function counters(db: Kysely<unknown>) {
  const one = async (query: string) =>
    Number((await sql<{ v: string }>`${sql.raw(query)}`.execute(db)).rows[0]!.v);
  return {
    listingVersion: await one('SELECT value::text AS v FROM listing_version WHERE id = 1'),
    allEpoch: await one('SELECT epoch::text AS v FROM listing_epochs WHERE project_id = 0'),
    deletionEpoch: await one('SELECT epoch::text AS v FROM listing_epochs WHERE project_id = -1'),
    rowVersion: await one("SELECT value::text AS v FROM row_versions WHERE name = 'all'"),
  };
}

postgres('synthetic seed across a partition boundary (postgres)', () => {
  let server: TestServer;
  let db: Kysely<unknown>;
  let before_: Awaited<ReturnType<typeof counters>>;

  before(async () => {
    server = await startServer({
      dialect: 'postgres',
      seed: async (store) => {
        const seed = new SeedService(store, systemClock);
        await seed.seedSynthetic({ events: 200, users: 5, projects: 2 });
        // One event high up, so the next seed's ids run from below the boundary to above it.
        await sql`INSERT INTO events (id, project_id, author_id, action, created_at)
          SELECT ${PARTITION_IDS - BELOW_BOUNDARY - 1}, project_id, author_id, action, created_at
          FROM events ORDER BY id DESC LIMIT 1`.execute(store.db);
        before_ = await counters(store.db as Kysely<unknown>);
        const summary = await seed.seedSynthetic({ events: EVENTS, users: 8, projects: 6 });
        assert.equal(summary.counts.event, EVENTS);
      },
    });
    db = server.store.db as Kysely<unknown>;
  });
  after(() => server?.close());

  it('puts the events in their partitions, with the partitions ahead of the sequence made', async () => {
    const max = PARTITION_IDS - BELOW_BOUNDARY - 1 + EVENTS;
    const counted = await sql<{ n: string; top: string }>`
      SELECT count(*)::text AS n, max(id)::text AS top FROM events`.execute(db);
    assert.deepEqual(counted.rows[0], { n: String(200 + 1 + EVENTS), top: String(max) });
    const above = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM ${sql.table(`events_${PARTITION_IDS}`)}`.execute(db);
    assert.equal(Number(above.rows[0]!.n), max - PARTITION_IDS + 1);
    const seq = await sql<{ next: string }>`
      SELECT nextval(pg_get_serial_sequence('events', 'id'))::text AS next`.execute(db);
    assert.equal(Number(seq.rows[0]!.next), max + 1);
    const lowers = (await partitions({ db: server.store.db, dialect: 'postgres' })).map(
      (p) => p.lower,
    );
    for (const lower of [0, 1, 2, 3].map((i) => i * PARTITION_IDS)) {
      assert.ok(lowers.includes(lower), `a partition from ${lower} (have ${lowers.join(', ')})`);
    }
  });

  it('leaves the tallies equal to a recount and the counters moved', async () => {
    await assertTalliesExact(db, 'after the seed');
    const now = await counters(db);
    assert.ok(now.listingVersion > before_.listingVersion, 'the listing version moved');
    assert.ok(now.allEpoch > before_.allEpoch, 'the epoch of all projects moved');
    assert.ok(now.deletionEpoch > before_.deletionEpoch, 'the deletions epoch moved');
    assert.ok(now.rowVersion > before_.rowVersion, 'the row version moved (new users, projects)');
  });

  it('answers a listing as the events say, with the tallies counting it', async () => {
    const { rows } = await sql<{ id: string }>`
      SELECT id::text AS id FROM projects WHERE visibility = 'public' ORDER BY id DESC LIMIT 1`.execute(
      db,
    );
    const projectId = Number(rows[0]!.id);
    // Anonymous: events on confidential issues are not shown, nor counted.
    const visible = `SELECT e.id FROM events e
      LEFT JOIN issues i ON i.id = e.issue_id AND i.project_id = e.project_id
      WHERE e.project_id = ${projectId} AND coalesce(i.confidential, 0) = 0`;
    const total = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM (${sql.raw(visible)}) v`.execute(db);
    const newest = await sql<{ id: string }>`
      SELECT v.id::text AS id FROM (${sql.raw(visible)}) v ORDER BY v.id DESC LIMIT 20`.execute(db);
    const res = await get(server.url, `/api/v4/projects/${projectId}/events?per_page=20`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-total'), total.rows[0]!.n);
    assert.deepEqual(
      (res.body as { id: number }[]).map((e) => e.id),
      newest.rows.map((r) => Number(r.id)),
    );
    assert.ok(Number(newest.rows[0]!.id) >= PARTITION_IDS, 'the newest are past the boundary');
  });

  it('keeps tallying inserts after the seed (the triggers are back)', async () => {
    await sql`INSERT INTO events (project_id, author_id, action, target_type, target_id, issue_id,
        created_at)
      SELECT project_id, author_id, action, target_type, target_id, issue_id, created_at
      FROM events WHERE issue_id IN (SELECT id FROM issues WHERE confidential = 1)
      ORDER BY id DESC LIMIT 50`.execute(db);
    await assertTalliesExact(db, 'after an insert following the seed');
  });
});
