/**
 * PostgreSQL's event partitions and 64-bit ids (migrations 026 and 027, store/events/partitions.ts):
 * a database made by the migrations before them converts with every row kept, the triggers on
 * events still keep the tallies, epochs and listing version, partitions are made ahead of the
 * ids, and dropping expired ones removes exactly those, with what is derived from them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { ImportError, ImportService } from '../../src/data/import.js';
import { systemClock } from '../../src/services/clock.js';
import { int8, openDatabase } from '../../src/store/database.js';
import { PARTITION_IDS } from '../../src/store/events/partitions.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { type Store, openStore } from '../../src/store/store.js';
import { migrate } from '../../src/store/migrate.js';
import { applyFirst, migrationIndex } from '../helpers/migrations.js';
import { DIALECTS, type TestDatabase, createTestDatabase } from '../helpers/server.js';

const postgres = process.env.PULSEGATE_TEST_POSTGRES_URL ? describe : describe.skip;

/** Every derived table a drop or a trigger must keep exact, and the tables converted. */
const CHECKED = [
  'events',
  'push_event_payloads',
  'event_tallies',
  'issue_event_tallies',
  'confidential_tallies',
  'listing_epochs',
  'notes',
  'issues',
  'webhook_deliveries',
];

/** Row count and md5 of every row of `table` in a fixed order (its text, columns in order). */
async function checksum(db: Kysely<unknown>, table: string): Promise<{ n: number; md5: string }> {
  const { rows } = await sql<{ n: string; md5: string | null }>`
    SELECT count(*)::text AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS md5
    FROM ${sql.table(table)} t`.execute(db);
  return { n: Number(rows[0]!.n), md5: rows[0]!.md5 ?? '' };
}

async function checksums(db: Kysely<unknown>): Promise<Record<string, { n: number; md5: string }>> {
  const out: Record<string, { n: number; md5: string }> = {};
  for (const table of CHECKED) out[table] = await checksum(db, table);
  return out;
}

/** Tallies as the events stand now (the triggers' result must equal this). */
async function talliesFromScratch(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ row: string }>`
    SELECT concat_ws(',', project_id, author_id, action, coalesce(target_type, ''), count(*)) AS row
    FROM events GROUP BY project_id, author_id, action, coalesce(target_type, '')
    ORDER BY 1`.execute(db);
  return rows.map((r) => r.row);
}

async function talliesKept(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ row: string }>`
    SELECT concat_ws(',', project_id, author_id, action, target_type, n) AS row
    FROM event_tallies WHERE n <> 0 ORDER BY 1`.execute(db);
  return rows.map((r) => r.row);
}

async function confidentialFromScratch(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ row: string }>`
    SELECT concat_ws(',', e.project_id, e.author_id, e.action, coalesce(e.target_type, ''), count(*)) AS row
    FROM events e JOIN issues i ON i.id = e.issue_id AND i.project_id = e.project_id
    WHERE i.confidential = 1
    GROUP BY e.project_id, e.author_id, e.action, coalesce(e.target_type, '') ORDER BY 1`.execute(
    db,
  );
  return rows.map((r) => r.row);
}

async function confidentialKept(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ row: string }>`
    SELECT concat_ws(',', project_id, author_id, action, target_type, n) AS row
    FROM confidential_tallies WHERE n <> 0 ORDER BY 1`.execute(db);
  return rows.map((r) => r.row);
}

async function epoch(db: Kysely<unknown>, projectId: number): Promise<number> {
  const { rows } = await sql<{ epoch: number }>`
    SELECT epoch FROM listing_epochs WHERE project_id = ${projectId}`.execute(db);
  return rows[0]?.epoch ?? 0;
}

async function listingVersion(db: Kysely<unknown>): Promise<number> {
  const { rows } = await sql<{ value: number }>`SELECT value FROM listing_version`.execute(db);
  return rows[0]!.value;
}

async function triggerNames(db: Kysely<unknown>, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT tgname AS name FROM pg_trigger
    WHERE tgrelid = ${table}::regclass AND NOT tgisinternal AND tgparentid = 0
    ORDER BY 1`.execute(db);
  return rows.map((r) => r.name);
}

async function indexNames(db: Kysely<unknown>, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE i.indrelid = ${table}::regclass ORDER BY 1`.execute(db);
  return rows.map((r) => r.name);
}

const DAY = 86_400_000;
const OLD = Date.UTC(2020, 0, 1);
const NEW = Date.UTC(2026, 0, 1);

describe('int8 from PostgreSQL', () => {
  it('is a number up to 2^53 − 1 and refused past it', () => {
    assert.equal(int8('2147483648'), 2 ** 31);
    assert.equal(int8(String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
    assert.equal(int8('-5'), -5);
    assert.throws(() => int8('9007199254740992'), RangeError);
    assert.throws(() => int8('9223372036854775807'), RangeError);
  });
});

postgres('event partitions and 64-bit ids (postgres)', () => {
  let tdb: TestDatabase;
  let store: Store;
  let db: Kysely<unknown>;

  before(async () => {
    tdb = await createTestDatabase('postgres');
    const conn = await openDatabase(tdb.url);
    const old = conn.db as unknown as Kysely<unknown>;
    const upTo = migrationIndex('026_bigint_ids');
    assert.ok(upTo > 0);
    const first = await applyFirst(conn, upTo);
    assert.equal(first.error, undefined);

    // A database as the migrations before 026 left it, with rows in three id ranges: ids 1–2,500,
    // 1,000,001–1,000,300 and 2,000,001–2,000,050 (events from three partitions, old and new).
    await sql`INSERT INTO users (id, username, name, email, created_at) VALUES
      (1, 'alice', 'Alice', 'a@example.com', 1), (2, 'bob', 'Bob', 'b@example.com', 1)`.execute(
      old,
    );
    await sql`INSERT INTO projects (id, namespace, path, full_path, name, visibility, creator_id, created_at)
      VALUES (1, 'alice', 'one', 'alice/one', 'one', 'public', 1, 1),
             (2, 'alice', 'two', 'alice/two', 'two', 'private', 1, 1)`.execute(old);
    await sql`INSERT INTO issues (id, project_id, iid, title, author_id, state, created_at, confidential)
      SELECT g, 1 + g % 2, g, 'issue ' || g, 1 + g % 2, 'opened', 1, (g % 5 = 0)::int
      FROM generate_series(1, 40) g`.execute(old);
    await sql`INSERT INTO notes (id, project_id, author_id, body, noteable_type, noteable_id, created_at, updated_at)
      SELECT g, 1 + g % 2, 1, 'note ' || g, 'Issue', 1 + g % 40, 1, 1
      FROM generate_series(1, 30) g`.execute(old);
    const events = (from: number, to: number, at: number) => sql`
      INSERT INTO events (id, project_id, author_id, action, target_type, target_id, issue_id, created_at)
      SELECT g, 1 + g % 2, 1 + (g / 3) % 2, 1 + g % 11,
             CASE WHEN g % 3 = 0 THEN 'Issue' ELSE NULL END,
             CASE WHEN g % 3 = 0 THEN 1 + g % 40 ELSE NULL END,
             CASE WHEN g % 3 = 0 THEN 1 + g % 40 ELSE NULL END,
             ${at}::bigint + g
      FROM generate_series(${from}::int, ${to}::int) g`;
    await events(1, 2_500, OLD).execute(old);
    await events(PARTITION_IDS + 1, PARTITION_IDS + 300, OLD + DAY).execute(old);
    await events(2 * PARTITION_IDS + 1, 2 * PARTITION_IDS + 50, NEW).execute(old);
    await sql`INSERT INTO push_event_payloads (event_id, action, ref_type, ref, commit_count, commits)
      SELECT id, 'pushed', 'branch', 'main', 1, '[]' FROM events WHERE action = 5`.execute(old);
    await sql`INSERT INTO project_hooks (id, project_id, url, created_at)
      VALUES (1, 1, 'http://example.test/a', 1)`.execute(old);
    await sql`INSERT INTO webhook_deliveries (hook_id, event_id, event_header, trigger, event_uuid,
        idempotency_key, payload, status, next_attempt_at, created_at)
      VALUES (1, 3, 'Issue Hook', 'issues_events', 'u1', 'k1', '{}', 'pending', 1, 1)`.execute(old);
    await sql`SELECT setval(pg_get_serial_sequence('events', 'id'), ${2 * PARTITION_IDS + 50})`.execute(
      old,
    );
    const before = await checksums(old);
    const triggersBefore = await triggerNames(old, 'events');
    const payloadTriggersBefore = await triggerNames(old, 'push_event_payloads');
    const indexesBefore = await indexNames(old, 'events');
    await conn.close();

    store = await openStore(tdb.url, { migrate: false });
    db = store.db as unknown as Kysely<unknown>;
    const report = await migrate(store.conn);
    assert.deepEqual(
      report.applied,
      MIGRATIONS.slice(upTo).map((m) => m.name),
    );
    assert.deepEqual(await checksums(db), before, 'every row is kept');
    assert.deepEqual(await triggerNames(db, 'events'), triggersBefore);
    assert.deepEqual(await triggerNames(db, 'push_event_payloads'), payloadTriggersBefore);
    assert.deepEqual(await indexNames(db, 'events'), indexesBefore);
  });

  after(async () => {
    await store?.close();
    await tdb?.drop();
  });

  it('makes events and push payloads partitioned by id ranges, ahead of the sequence', async () => {
    const kinds = await sql<{ name: string; kind: string }>`
      SELECT relname AS name, relkind::text AS kind FROM pg_class
      WHERE oid IN ('events'::regclass, 'push_event_payloads'::regclass) ORDER BY 1`.execute(db);
    assert.deepEqual(kinds.rows, [
      { name: 'events', kind: 'p' },
      { name: 'push_event_payloads', kind: 'p' },
    ]);
    // The three ranges holding rows, and two more beyond the one the next id (2,000,051) is in.
    assert.deepEqual(
      (await store.events.partitions()).map((p) => [p.name, p.lower, p.upper]),
      [0, 1, 2, 3, 4].map((i) => [`events_${i * PARTITION_IDS}`, i * PARTITION_IDS, (i + 1) * PARTITION_IDS]),
    );
    const payloads = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM pg_inherits WHERE inhparent = 'push_event_payloads'::regclass`.execute(
      db,
    );
    assert.equal(payloads.rows[0]!.n, '5');
    // The payloads' foreign key onto events is there again.
    await assert.rejects(
      sql`INSERT INTO push_event_payloads (event_id, action, ref_type, ref, commit_count, commits)
        VALUES (999999, 'pushed', 'branch', 'main', 1, '[]')`.execute(db),
      /foreign key/,
    );
  });

  it('makes the growing ids bigint, sequences included', async () => {
    const { rows } = await sql<{ col: string; type: string }>`
      SELECT table_name || '.' || column_name AS col, data_type AS type
      FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name IN ('events', 'push_event_payloads',
        'notes', 'issues', 'merge_requests', 'webhook_deliveries', 'users', 'projects')
        AND column_name IN ('id', 'event_id', 'target_id', 'issue_id', 'noteable_id')
      ORDER BY 1`.execute(db);
    assert.deepEqual(rows, [
      { col: 'events.id', type: 'bigint' },
      { col: 'events.issue_id', type: 'bigint' },
      { col: 'events.target_id', type: 'bigint' },
      { col: 'issues.id', type: 'bigint' },
      { col: 'merge_requests.id', type: 'bigint' },
      { col: 'notes.id', type: 'bigint' },
      { col: 'notes.noteable_id', type: 'bigint' },
      { col: 'projects.id', type: 'integer' },
      { col: 'push_event_payloads.event_id', type: 'bigint' },
      { col: 'users.id', type: 'integer' },
      { col: 'webhook_deliveries.event_id', type: 'bigint' },
      { col: 'webhook_deliveries.id', type: 'bigint' },
    ]);
    const seqs = await sql<{ seq: string; type: string }>`
      SELECT sequencename AS seq, data_type::text AS type FROM pg_sequences
      WHERE schemaname = current_schema()
        AND sequencename IN ('events_id_seq', 'issues_id_seq', 'notes_id_seq', 'users_id_seq')
      ORDER BY 1`.execute(db);
    assert.deepEqual(seqs.rows, [
      { seq: 'events_id_seq', type: 'bigint' },
      { seq: 'issues_id_seq', type: 'bigint' },
      { seq: 'notes_id_seq', type: 'bigint' },
      { seq: 'users_id_seq', type: 'integer' },
    ]);
  });

  it('keeps the triggers on events working: tallies, confidential tallies, epochs, version', async () => {
    assert.deepEqual(await talliesKept(db), await talliesFromScratch(db));
    assert.deepEqual(await confidentialKept(db), await confidentialFromScratch(db));
    const version = await listingVersion(db);
    const epochs = [await epoch(db, 1), await epoch(db, 0), await epoch(db, -1)];
    // An append continues the sequence and leaves the version (migration 016).
    const row = await store.events.append(
      { project_id: 1, author_id: 2, action: 5, target_type: null, target_id: null, issue_id: null, created_at: NEW + DAY },
      { action: 'pushed', ref_type: 'branch', ref: 'main', commit_from: null, commit_to: null, commit_count: 0, commit_title: null, commits: '[]' },
    );
    assert.equal(row.id, 2 * PARTITION_IDS + 51);
    assert.equal(typeof row.id, 'number');
    assert.equal(await listingVersion(db), version);
    // A note on a confidential issue (issue 5) counts in the confidential tallies.
    await store.events.append({ project_id: 2, author_id: 1, action: 6, target_type: 'Note', target_id: 1, issue_id: 5, created_at: NEW + DAY });
    assert.deepEqual(await talliesKept(db), await talliesFromScratch(db));
    assert.deepEqual(await confidentialKept(db), await confidentialFromScratch(db));
    // A hand-typed delete moves the project's, all and the deletions epochs and the version.
    await sql`DELETE FROM push_event_payloads WHERE event_id = ${row.id}`.execute(db);
    await sql`DELETE FROM events WHERE id = ${row.id}`.execute(db);
    assert.deepEqual(
      [await epoch(db, 1), await epoch(db, 0), await epoch(db, -1)],
      epochs.map((e) => e + 1),
    );
    assert.ok((await listingVersion(db)) > version);
    assert.deepEqual(await talliesKept(db), await talliesFromScratch(db));
    // An event moved to another issue by hand moves between the tallies.
    await sql`UPDATE events SET issue_id = 10 WHERE id = 3`.execute(db);
    assert.deepEqual(await confidentialKept(db), await confidentialFromScratch(db));
  });

  it('creates partitions ahead of the sequence, and for a bulk load’s ids', async () => {
    const seq = "pg_get_serial_sequence('events', 'id')";
    await sql.raw(`SELECT setval(${seq}, ${4 * PARTITION_IDS + 10})`).execute(db);
    assert.deepEqual(await store.events.ensurePartitions(), [
      `events_${5 * PARTITION_IDS}`,
      `events_${6 * PARTITION_IDS}`,
    ]);
    assert.deepEqual(await store.events.ensurePartitions(), [], 'made once');
    // Far past 2^31: only the ranges the ids need, not the ones in between.
    const big = 2 ** 31 + 5;
    await sql.raw(`SELECT setval(${seq}, ${big})`).execute(db);
    const lower = Math.floor((big + 1) / PARTITION_IDS) * PARTITION_IDS;
    assert.deepEqual(await store.events.ensurePartitions(), [0, 1, 2].map((i) => `events_${lower + i * PARTITION_IDS}`));
    const row = await store.events.append({ project_id: 1, author_id: 1, action: 1, target_type: null, target_id: null, issue_id: null, created_at: NEW + 2 * DAY });
    assert.equal(row.id, big + 1);
    const back = await store.events.byIds([big + 1]);
    assert.deepEqual(back.map((e) => e.id), [big + 1]);
    assert.deepEqual(
      await store.events.ensurePartitions({ from: 7 * PARTITION_IDS + 3, through: 8 * PARTITION_IDS }),
      [`events_${7 * PARTITION_IDS}`, `events_${8 * PARTITION_IDS}`],
    );
    // Without a partition for its id, an insert is refused rather than put somewhere else.
    await assert.rejects(
      sql`INSERT INTO events (id, project_id, author_id, action, created_at)
        VALUES (${20 * PARTITION_IDS}, 1, 1, 1, 1)`.execute(db),
      /no partition/,
    );
  });

  it('drops exactly the partitions whose newest event is older than the cutoff', async () => {
    const version = await listingVersion(db);
    const epochs = [await epoch(db, 1), await epoch(db, 2), await epoch(db, 0), await epoch(db, -1)];
    const total = await checksum(db, 'events');
    const inFirst = (await sql<{ n: number }>`SELECT count(*) AS n FROM events WHERE id < ${PARTITION_IDS}`.execute(db)).rows[0]!.n;
    // Between the first range's newest event (OLD + 2,500 ms) and the second's oldest: only the first.
    const payloadsIn = async (lower: number) =>
      Number((await sql<{ n: number }>`SELECT count(*) AS n FROM push_event_payloads
        WHERE event_id >= ${lower} AND event_id < ${lower + PARTITION_IDS}`.execute(db)).rows[0]!.n);
    const [firstPayloads, secondPayloads] = [await payloadsIn(0), await payloadsIn(PARTITION_IDS)];
    const cutoff = OLD + 2_501;
    const dropped = await store.events.dropExpiredPartitions(cutoff);
    assert.deepEqual(dropped, { partitions: ['events_0'], events: inFirst, pushPayloads: firstPayloads });
    assert.equal((await checksum(db, 'events')).n, total.n - inFirst);
    assert.equal((await store.events.partitions())[0]!.name, `events_${PARTITION_IDS}`);
    const payloads = await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'push_event_payloads'::regclass ORDER BY c.relname LIMIT 1`.execute(db);
    assert.notEqual(payloads.rows[0]?.name, 'push_event_payloads_0');
    assert.equal(
      (await sql<{ n: number }>`SELECT count(*) AS n FROM pg_class WHERE relname IN ('events_0', 'push_event_payloads_0')
        AND relnamespace = current_schema()::regnamespace`.execute(db)).rows[0]!.n,
      0,
    );
    // What deleting the rows would have done to what is derived from them.
    assert.deepEqual(await talliesKept(db), await talliesFromScratch(db));
    assert.deepEqual(await confidentialKept(db), await confidentialFromScratch(db));
    assert.deepEqual(
      [await epoch(db, 1), await epoch(db, 2), await epoch(db, 0), await epoch(db, -1)],
      epochs.map((e) => e + 1),
    );
    assert.ok((await listingVersion(db)) > version);

    // Nothing more at the same cutoff; a later one takes the second range and stops at the third,
    // whose events are newer.
    assert.deepEqual(await store.events.dropExpiredPartitions(cutoff), { partitions: [], events: 0, pushPayloads: 0 });
    const next = await store.events.dropExpiredPartitions(NEW);
    assert.deepEqual(next, { partitions: [`events_${PARTITION_IDS}`], events: 300, pushPayloads: secondPayloads });
    assert.deepEqual(await talliesKept(db), await talliesFromScratch(db));
  });

  it('never drops the partition the next ids go to, nor those ahead', async () => {
    // Rows in two of the ranges that go, so one transaction takes two partitions' tallies out.
    await sql`INSERT INTO events (id, project_id, author_id, action, created_at)
      VALUES (${3 * PARTITION_IDS + 1}, 2, 2, 1, ${OLD})`.execute(db);
    const before = await store.events.partitions();
    const dropped = await store.transaction((tx) =>
      tx.events.dropExpiredPartitions(Date.UTC(2100, 0, 1)),
    );
    // Every range below the next id (2^31 + 6) goes, empty ones too; the one holding it stays.
    const next = 2 ** 31 + 6;
    assert.deepEqual(
      dropped.partitions,
      before.filter((p) => p.upper <= next).map((p) => p.name),
    );
    assert.deepEqual(
      (await store.events.partitions()).map((p) => p.name),
      before.filter((p) => p.upper > next).map((p) => p.name),
    );
    assert.deepEqual(await talliesKept(db), await talliesFromScratch(db));
    const left = await sql<{ n: number }>`SELECT count(*) AS n FROM events`.execute(db);
    assert.equal(left.rows[0]!.n, 1);
  });

  it('drops and creates partitions while appends run, without a deadlock, tallies exact', async () => {
    const lower = 10 * PARTITION_IDS;
    await store.events.ensurePartitions({ from: lower, through: lower + 99 });
    await sql`INSERT INTO events (id, project_id, author_id, action, created_at)
      SELECT g, 1 + g % 2, 1, 1, ${OLD}::bigint + g
      FROM generate_series(${lower + 1}::bigint, ${lower + 100}::bigint) g`.execute(db);
    // Appenders keep writing, four at a time, until `work` is done; none may fail.
    const appended: number[] = [];
    const whileAppending = async <T>(work: () => Promise<T>): Promise<T> => {
      let done = false;
      const writer = async (w: number) => {
        for (let i = 0; !done || i < 5; i++) {
          const row = await store.events.append(
            {
              project_id: 1 + (i % 2),
              author_id: 1,
              action: 5,
              target_type: null,
              target_id: null,
              issue_id: null,
              created_at: NEW + w * 1000 + i,
            },
            {
              action: 'pushed',
              ref_type: 'branch',
              ref: 'main',
              commit_from: null,
              commit_to: null,
              commit_count: 0,
              commit_title: null,
              commits: '[]',
            },
          );
          appended.push(row.id);
        }
      };
      const writers = [0, 1, 2, 3].map(writer);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const working = work().finally(() => {
        done = true;
      });
      const settled = await Promise.allSettled([working, ...writers]);
      // A deadlock names the locks: PostgreSQL's detail says which.
      const outcome = (r: PromiseSettledResult<unknown>) =>
        r.status === 'rejected' ? `${String(r.reason)} ${(r.reason as { detail?: string }).detail}` : 'ok';
      assert.deepEqual(settled.map(outcome), ['ok', 'ok', 'ok', 'ok', 'ok']);
      return working;
    };
    const dropped = await whileAppending(() => store.events.dropExpiredPartitions(NEW));
    assert.deepEqual(dropped, { partitions: [`events_${lower}`], events: 100, pushPayloads: 0 });
    assert.equal(new Set(appended).size, appended.length);
    assert.deepEqual(await talliesKept(db), await talliesFromScratch(db));
    const left = await sql<{ n: number }>`SELECT count(*) AS n FROM events WHERE id >= ${lower}
      AND id < ${lower + PARTITION_IDS}`.execute(db);
    assert.equal(left.rows[0]!.n, 0);
    // Creating partitions (their foreign keys' triggers too) while appends run.
    const created = await whileAppending(() =>
      store.events.ensurePartitions({ from: 20 * PARTITION_IDS, through: 22 * PARTITION_IDS - 1 }),
    );
    assert.deepEqual(created, [`events_${20 * PARTITION_IDS}`, `events_${21 * PARTITION_IDS}`]);
    assert.equal(new Set(appended).size, appended.length);
    assert.deepEqual(await talliesKept(db), await talliesFromScratch(db));
  });
});

for (const dialect of DIALECTS) {
  describe(`an import keeps ids past 2^31 (${dialect})`, () => {
    let tdb: TestDatabase;
    let store: Store;

    before(async () => {
      tdb = await createTestDatabase(dialect);
      store = await openStore(tdb.url);
    });
    after(async () => {
      await store?.close();
      await tdb?.drop();
    });

    it('writes events, their payloads, issues and notes with 64-bit ids, partitions made first', async () => {
      const big = 2 ** 40;
      const at = '2026-01-02T10:00:00.000Z';
      const lines = [
        { kind: 'user', id: 1, username: 'alice', name: 'Alice', email: 'alice@example.com' },
        { kind: 'project', id: 1, namespace: 'acme', path: 'api', name: 'API', description: '', visibility: 'public', creator_id: 1 },
        { kind: 'issue', id: big, project_id: 1, iid: 1, title: 'Bug', author_id: 1, confidential: false, state: 'opened' },
        { kind: 'note', id: big + 1, project_id: 1, author_id: 1, body: 'hi', noteable_type: 'Issue', noteable_id: big, system: false, created_at: at },
        { kind: 'event', id: big + 2, project_id: 1, author_id: 1, action: 'commented', target_type: 'Note', target_id: big + 1, created_at: at },
        { kind: 'event', id: big + 3, project_id: 1, author_id: 1, action: 'pushed', target_type: null, target_id: null, created_at: at,
          push: { ref: 'refs/heads/main', before: 'a'.repeat(40), after: 'b'.repeat(40), commits: [] } },
      ].map((r) => JSON.stringify(r));
      const summary = await new ImportService(store, systemClock).importText(lines.join('\n') + '\n');
      assert.equal(summary.counts.event, 2);
      const events = await store.events.byIds([big + 2, big + 3]);
      assert.deepEqual(
        events.map((e) => [e.id, e.target_id, e.issue_id]).sort(),
        [
          [big + 2, big + 1, big],
          [big + 3, null, null],
        ],
      );
      const db = store.db as unknown as Kysely<unknown>;
      const payload = await sql<{ event_id: number }>`SELECT event_id FROM push_event_payloads`.execute(db);
      assert.deepEqual(payload.rows, [{ event_id: big + 3 }]);
      if (dialect === 'postgres') {
        // The imported ids' range, and the two after the one the next id falls in.
        const lower = Math.floor(big / PARTITION_IDS) * PARTITION_IDS;
        const ranges = (await store.events.partitions()).map((p) => p.lower);
        for (const l of [lower, lower + PARTITION_IDS, lower + 2 * PARTITION_IDS]) {
          assert.ok(ranges.includes(l), `${l} in ${ranges.join(', ')}`);
        }
      }
      // A larger id than JSON holds exactly is refused, as the 32-bit ones of other kinds are.
      await assert.rejects(
        new ImportService(store, systemClock).importText(
          JSON.stringify({ kind: 'event', id: 2 ** 53, project_id: 1, author_id: 1, action: 'created', target_type: null, target_id: null, created_at: at }) + '\n',
        ),
        (error: unknown) => error instanceof ImportError && /id/.test(error.message),
      );
    });
  });
}
