/**
 * PostgreSQL's event partitions (migration 027): `events` and `push_event_payloads` are partitioned
 * by ranges of event ids, `PARTITION_IDS` ids a partition, each named after its lower bound
 * (`events_1000000` holds ids 1,000,000 to 1,999,999). There is no default partition: a row whose
 * range has no partition is refused, so partitions are created ahead of the id sequence by the
 * background loop, and before a bulk load for the ids it brings. Old partitions are dropped whole
 * once their newest event is older than a retention cutoff, with the bookkeeping the per-row
 * triggers would have done (tallies, epochs, the listing version). SQLite keeps one table: every
 * function here is a no-op there.
 */
import { type Kysely, type Transaction, sql } from 'kysely';
import { lockEvents } from '../events-lock.js';
import type { Database } from '../schema.js';
import type { EventContext } from './query.js';

/** Ids per partition (migration 027 keeps its own copy: partitions it made have this size). */
export const PARTITION_IDS = 1_000_000;
/** Ranges kept ready beyond the one the sequence is in. */
export const PARTITIONS_AHEAD = 2;
/** Partition management of several processes goes one at a time ("pulsegate parts", folded). */
const PARTITIONS_LOCK_KEY = 7_062_091_135_457_392n;
/** A partition change waits this long for the tables' locks, then gives up until the next run. */
const LOCK_TIMEOUT = '5s';

export interface EventPartition {
  name: string;
  /** The lowest id it holds. */
  lower: number;
  /** The lowest id it does not hold. */
  upper: number;
}

export interface DroppedPartitions {
  /** The events partitions dropped (with their payload partitions), oldest first. */
  partitions: string[];
  /** How many events they held. */
  events: number;
  /** How many push payloads went with them. */
  pushPayloads: number;
}

/** The partitions of `events`, lowest ids first; empty on SQLite or an unpartitioned table. */
/** What partition management needs of the event store's context. */
type PartitionContext = Pick<EventContext, 'db' | 'dialect'>;

export async function partitions(ctx: PartitionContext): Promise<EventPartition[]> {
  if (ctx.dialect !== 'postgres') return [];
  return partitionsOf(ctx.db, 'events');
}

async function partitionsOf(db: Kysely<Database>, table: string): Promise<EventPartition[]> {
  const { rows } = await sql<{ name: string; bound: string }>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = to_regclass(${table})`.execute(db);
  const out: EventPartition[] = [];
  for (const row of rows) {
    const m = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(row.bound);
    if (m) out.push({ name: row.name, lower: Number(m[1]), upper: Number(m[2]) });
  }
  return out.sort((a, b) => a.lower - b.lower);
}

/** The id the sequence hands out next. */
async function nextId(db: Kysely<Database>): Promise<number> {
  const seq = (
    await sql<{ seq: string }>`
    SELECT pg_get_serial_sequence('events', 'id') AS seq`.execute(db)
  ).rows[0]!.seq;
  const { rows } = await sql<{ next: number }>`
    SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END AS next
    FROM ${sql.raw(seq)}`.execute(db);
  return rows[0]!.next;
}

/** `work` in a transaction (the caller's, if it is in one) holding the partition lock. */
async function managing<R>(
  db: Kysely<Database>,
  work: (trx: Kysely<Database> | Transaction<Database>) => Promise<R>,
): Promise<R> {
  const run = async (trx: Kysely<Database>, own: boolean) => {
    await sql`SELECT pg_advisory_xact_lock(${sql.raw(PARTITIONS_LOCK_KEY.toString())})`.execute(
      trx,
    );
    // Only in a transaction of its own: a caller's (an import) keeps its own settings.
    if (own) await sql.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`).execute(trx);
    return work(trx);
  };
  return db.isTransaction ? run(db, false) : db.transaction().execute((trx) => run(trx, true));
}

/**
 * Creates the partitions missing for the ids the sequence hands out next (its range and
 * `PARTITIONS_AHEAD` more) and, for a bulk load, for every id from `ids.from` to `ids.through`.
 * Returns the names of the events partitions it created.
 */
export async function ensurePartitions(
  ctx: PartitionContext,
  ids?: { from: number; through: number },
): Promise<string[]> {
  if (ctx.dialect !== 'postgres') return [];
  const created: string[] = [];
  await managing(ctx.db, async (trx) => {
    const existing = await partitionsOf(trx, 'events');
    if (existing.length === 0) return; // not partitioned (before migration 027)
    const wanted = new Set<number>();
    const start = Math.floor((await nextId(trx)) / PARTITION_IDS);
    for (let i = 0; i <= PARTITIONS_AHEAD; i++) wanted.add((start + i) * PARTITION_IDS);
    if (ids && ids.through >= ids.from) {
      const last = Math.floor(ids.through / PARTITION_IDS);
      for (let i = Math.floor(Math.max(ids.from, 0) / PARTITION_IDS); i <= last; i++) {
        wanted.add(i * PARTITION_IDS);
      }
    }
    // A range another partition already covers in part (one made with another size) is left.
    const missing = [...wanted]
      .sort((a, b) => a - b)
      .filter((lower) => !existing.some((p) => p.lower < lower + PARTITION_IDS && lower < p.upper));
    // A new partition gets the foreign keys' triggers on projects and users: their locks first,
    // in the order an append takes its locks (see dropIfExpired).
    if (missing.length > 0) await lockAsAppendsDo(trx);
    for (const lower of missing) {
      const upper = lower + PARTITION_IDS;
      for (const table of ['events', 'push_event_payloads']) {
        await sql
          .raw(
            `CREATE TABLE ${table}_${lower} PARTITION OF ${table}
             FOR VALUES FROM (${lower}) TO (${upper})`,
          )
          .execute(trx);
      }
      created.push(`events_${lower}`);
    }
  });
  return created;
}

/**
 * The tables' locks a partition change needs, in the order an append takes them, so the two
 * cannot deadlock: an append updates its project (projects), then inserts (events, payloads). A
 * partition created or dropped gains or loses its foreign keys' triggers on projects and users,
 * which takes their SHARE ROW EXCLUSIVE lock, so those come first; events and payloads after.
 */
async function lockAsAppendsDo(trx: Kysely<Database>): Promise<void> {
  await sql`LOCK TABLE projects, users IN SHARE ROW EXCLUSIVE MODE`.execute(trx);
  await sql`LOCK TABLE events, push_event_payloads IN ACCESS EXCLUSIVE MODE`.execute(trx);
}

const TARGET = "coalesce(target_type, '')";

/**
 * Detaches and drops, oldest first, the events partitions (with their payload partitions) whose
 * newest event was created before `cutoff` (epoch ms), stopping at the first that holds a newer
 * one. A partition that the sequence's next id or a later one falls in is never dropped. Each
 * drop is one transaction that does what deleting its rows one by one would have done to what
 * is derived from them: tallies and confidential tallies lose their events, the epochs of their
 * projects, of all projects and of deletions move (every cached listing starts over), and the
 * listing version moves. Webhook deliveries that name the events are left to their own retention.
 * Best called outside a transaction: each drop then holds the tables' locks only for its own.
 */
export async function dropExpiredPartitions(
  ctx: PartitionContext,
  cutoff: number,
): Promise<DroppedPartitions> {
  const out: DroppedPartitions = { partitions: [], events: 0, pushPayloads: 0 };
  if (ctx.dialect !== 'postgres') return out;
  for (;;) {
    const dropped = await managing(ctx.db, async (trx) => {
      const next = await nextId(trx);
      const oldest = (await partitionsOf(trx, 'events'))[0];
      if (!oldest || oldest.upper > next) return null;
      return dropIfExpired(trx, oldest, cutoff);
    });
    if (!dropped) return out;
    out.partitions.push(dropped.name);
    out.events += dropped.events;
    out.pushPayloads += dropped.pushPayloads;
  }
}

async function dropIfExpired(
  trx: Kysely<Database>,
  partition: EventPartition,
  cutoff: number,
): Promise<{ name: string; events: number; pushPayloads: number } | null> {
  const events = partition.name;
  const payloads = `push_event_payloads_${partition.lower}`;
  const hasPayloads = (await partitionsOf(trx, 'push_event_payloads')).some(
    (p) => p.name === payloads,
  );
  // Its rows stay as they are from here (reads go on); the tallies to take out are counted
  // before the whole tables are locked, so readers wait only for the bookkeeping and the drop.
  await sql.raw(`LOCK TABLE ${events} IN SHARE MODE`).execute(trx);
  const newest = await sql<{ newest: number | null; n: number }>`
    SELECT max(created_at) AS newest, count(*) AS n FROM ${sql.table(events)}`.execute(trx);
  const { newest: newestAt, n } = newest.rows[0]!;
  if (newestAt !== null && newestAt >= cutoff) return null;
  if (n > 0) {
    // A caller's transaction may drop several partitions before its commit drops these.
    await sql`DROP TABLE IF EXISTS dropped_tallies, dropped_issue_tallies`.execute(trx);
    await sql
      .raw(
        `CREATE TEMP TABLE dropped_tallies ON COMMIT DROP AS
         SELECT project_id, author_id, action, ${TARGET} AS target_type, count(*) AS n
         FROM ${events} GROUP BY project_id, author_id, action, ${TARGET}`,
      )
      .execute(trx);
    await sql
      .raw(
        `CREATE TEMP TABLE dropped_issue_tallies ON COMMIT DROP AS
         SELECT issue_id, project_id, author_id, action, ${TARGET} AS target_type, count(*) AS n
         FROM ${events} WHERE issue_id IS NOT NULL
         GROUP BY issue_id, project_id, author_id, action, ${TARGET}`,
      )
      .execute(trx);
  }
  await lockAsAppendsDo(trx);
  await lockEvents(trx);
  if (n > 0) {
    // Confidentiality is read under the events lock, as its own trigger reads it (migration 018).
    await sql`
      INSERT INTO confidential_tallies (project_id, author_id, action, target_type, n)
      SELECT t.project_id, t.author_id, t.action, t.target_type, -sum(t.n)
      FROM dropped_issue_tallies t
      JOIN issues ci ON ci.id = t.issue_id AND ci.project_id = t.project_id
      WHERE ci.confidential = 1
      GROUP BY t.project_id, t.author_id, t.action, t.target_type
      ON CONFLICT (project_id, author_id, action, target_type)
      DO UPDATE SET n = confidential_tallies.n + excluded.n`.execute(trx);
    await sql`
      INSERT INTO event_tallies (project_id, author_id, action, target_type, n)
      SELECT project_id, author_id, action, target_type, -n FROM dropped_tallies
      ON CONFLICT (project_id, author_id, action, target_type)
      DO UPDATE SET n = event_tallies.n + excluded.n`.execute(trx);
    await sql`
      INSERT INTO issue_event_tallies (issue_id, project_id, author_id, action, target_type, n)
      SELECT issue_id, project_id, author_id, action, target_type, -n FROM dropped_issue_tallies
      ON CONFLICT (issue_id, author_id, action, target_type, project_id)
      DO UPDATE SET n = issue_event_tallies.n + excluded.n`.execute(trx);
    await sql`
      INSERT INTO listing_epochs (project_id, epoch)
      SELECT DISTINCT project_id, 1 FROM dropped_tallies
      ON CONFLICT (project_id) DO UPDATE SET epoch = listing_epochs.epoch + 1`.execute(trx);
    await sql`UPDATE listing_epochs SET epoch = epoch + 1 WHERE project_id IN (0, -1)`.execute(trx);
    // As migration 009's listing_version_note: the version moves once, at commit.
    await sql`SELECT set_config('pulsegate.listing_changed', '1', true)`.execute(trx);
    await sql`INSERT INTO listing_version_bumps (txid) VALUES (txid_current())
      ON CONFLICT (txid) DO NOTHING`.execute(trx);
  }
  let pushPayloads = 0;
  if (hasPayloads) {
    const counted = await sql<{ n: number }>`
      SELECT count(*) AS n FROM ${sql.table(payloads)}`.execute(trx);
    pushPayloads = Number(counted.rows[0]!.n);
    await sql.raw(`ALTER TABLE push_event_payloads DETACH PARTITION ${payloads}`).execute(trx);
    await sql.raw(`DROP TABLE ${payloads}`).execute(trx);
  }
  await sql.raw(`ALTER TABLE events DETACH PARTITION ${events}`).execute(trx);
  await sql.raw(`DROP TABLE ${events}`).execute(trx);
  return { name: events, events: Number(n), pushPayloads };
}
