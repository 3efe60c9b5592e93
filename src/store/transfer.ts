/**
 * What import, export and seeding ask of the database: one transaction for a whole import (with the
 * keys it must not collide with, a bulk writer and PostgreSQL sequence repair), keyset reads of
 * whole tables for export, and a few counts. The data tooling (src/data/) sees only these methods,
 * never Kysely.
 */
import { type Kysely, type Selectable, sql } from 'kysely';
import { bulkLoad } from './bulk-load.js';
import {
  BULK_TABLES,
  type BulkTable,
  type BulkColumns,
  BulkWriter,
  type IdTable,
  PAIR_TABLES,
} from './bulk.js';
import type { Dialect } from './database.js';
import { PARTITION_IDS, ensurePartitions } from './events/partitions.js';
import type { Database, EventRow, PushPayloadRow } from './schema.js';
import type { Store } from './store.js';

/** What already exists in the database (loaded once, inside the import's transaction). */
export interface ExistingKeys {
  users: { id: number; username: string; email: string }[];
  projects: { id: number; full_path: string }[];
  members: { project_id: number; user_id: number }[];
  approvals: { merge_request_id: number; user_id: number }[];
  stars: { user_id: number; project_id: number }[];
  follows: { follower_id: number; followee_id: number }[];
  milestones: { id: number; project_id: number }[];
  issues: { id: number; project_id: number; iid: number }[];
  mergeRequests: { id: number; project_id: number; iid: number }[];
  snippets: { id: number }[];
  notes: { id: number; project_id: number; noteable_type: string; noteable_id: number }[];
  tokens: { id: number; token_digest: string }[];
  applications: { id: number; uid: string }[];
}

/** The import's view of its one transaction. */
export class ImportTransaction {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Event partition ranges known to exist in this transaction (PostgreSQL). */
  private readonly partitioned = new Set<number>();
  private readonly writers: BulkWriter[] = [];

  /** The projects this transaction's writers wrote events in. */
  *eventProjects(): Iterable<number> {
    for (const writer of this.writers) yield* writer.eventProjects;
  }

  /** A bulk writer inside this transaction, inserting `columns` of each table. */
  writer(columns: BulkColumns): BulkWriter {
    const writer = this.newWriter(columns);
    this.writers.push(writer);
    return writer;
  }

  private newWriter(columns: BulkColumns): BulkWriter {
    if (this.dialect !== 'postgres') return new BulkWriter(this.db, columns);
    // Imported events keep their ids: their partitions must exist before they are written.
    return new BulkWriter(this.db, columns, async (from, through) => {
      const first = Math.floor(from / PARTITION_IDS);
      const last = Math.floor(through / PARTITION_IDS);
      let known = true;
      for (let i = first; i <= last && known; i++) known = this.partitioned.has(i);
      if (known) return;
      await ensurePartitions({ db: this.db, dialect: this.dialect }, { from, through });
      for (let i = first; i <= last; i++) this.partitioned.add(i);
    });
  }

  /** Ids and unique keys an import must not collide with (everything but events). */
  async existingKeys(): Promise<ExistingKeys> {
    const db = this.db;
    return {
      users: await db.selectFrom('users').select(['id', 'username', 'email']).execute(),
      projects: await db.selectFrom('projects').select(['id', 'full_path']).execute(),
      members: await db.selectFrom('project_members').select(['project_id', 'user_id']).execute(),
      approvals: await db
        .selectFrom('merge_request_approvals')
        .select(['merge_request_id', 'user_id'])
        .execute(),
      stars: await db.selectFrom('project_stars').select(['user_id', 'project_id']).execute(),
      follows: await db.selectFrom('user_follows').select(['follower_id', 'followee_id']).execute(),
      milestones: await db.selectFrom('milestones').select(['id', 'project_id']).execute(),
      issues: await db.selectFrom('issues').select(['id', 'project_id', 'iid']).execute(),
      mergeRequests: await db
        .selectFrom('merge_requests')
        .select(['id', 'project_id', 'iid'])
        .execute(),
      snippets: await db.selectFrom('snippets').select(['id']).execute(),
      notes: await db
        .selectFrom('notes')
        .select(['id', 'project_id', 'noteable_type', 'noteable_id'])
        .execute(),
      tokens: await db
        .selectFrom('personal_access_tokens')
        .select(['id', 'token_digest'])
        .execute(),
      applications: await db.selectFrom('oauth_applications').select(['id', 'uid']).execute(),
    };
  }

  /** Existing event ids, a page at a time (there may be millions). */
  async *eventIdPages(pageSize = 50_000): AsyncGenerator<number[]> {
    let after = 0;
    for (;;) {
      const rows = await this.db
        .selectFrom('events')
        .select('id')
        .where('id', '>', after)
        .orderBy('id')
        .limit(pageSize)
        .execute();
      if (rows.length === 0) return;
      yield rows.map((r) => r.id);
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  /**
   * After rows were inserted with explicit ids, PostgreSQL's serial sequences still point at 1:
   * move each past the highest id so the next ordinary insert does not collide. Only forward: a
   * sequence already past the highest id has handed out ids since deleted, which must not come
   * back (migration 020). SQLite needs nothing (AUTOINCREMENT records explicit ids too).
   */
  async resetSequences(): Promise<void> {
    if (this.dialect !== 'postgres') return;
    for (const table of ID_TABLES) {
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'),
        greatest(coalesce((select max(id) from ${sql.table(table)}), 0),
          coalesce(pg_sequence_last_value(pg_get_serial_sequence(${table}, 'id')::regclass), 0))
        + 1, false)`.execute(this.db);
    }
    // The ids appends take next, after the imported ones, have their partitions now too.
    await ensurePartitions({ db: this.db, dialect: this.dialect });
  }
}

const ID_TABLES = BULK_TABLES.filter(
  (t): t is IdTable =>
    !(PAIR_TABLES as readonly string[]).includes(t) && t !== 'push_event_payloads',
);

export class TransferStore {
  constructor(private readonly store: Store) {}

  private get db(): Kysely<Database> {
    return this.store.db;
  }

  /** Runs a whole import in one transaction: everything is written, or nothing. */
  importTransaction<T>(run: (tx: ImportTransaction) => Promise<T>): Promise<T> {
    const { dialect } = this.store.conn;
    return this.db.transaction().execute((trx) => {
      const tx = new ImportTransaction(trx, dialect);
      return bulkLoad(
        trx,
        dialect,
        async () => {
          const result = await run(tx);
          // Imported events keep their ids, which may lie below what running servers have cached
          // up to: every listing cache starts over (see docs/listing-caches.md), with the commit.
          await trx
            .updateTable('listing_epochs')
            .set((eb) => ({ epoch: eb('epoch', '+', 1) }))
            .where('project_id', 'in', [0, -1])
            .execute();
          return result;
        },
        () => tx.eventProjects(),
      );
    });
  }

  /**
   * PostgreSQL: creates the event partitions for ids `from` to `through` (and those ahead of the
   * sequence) in a transaction of its own, before a load that knows its ids brings them. Made
   * during the load instead, each would lock projects and users while appends may be waiting for
   * the load's events lock with a project row locked.
   */
  async prepareEventIds(from: number, through: number): Promise<void> {
    await ensurePartitions({ db: this.db, dialect: this.store.conn.dialect }, { from, through });
  }

  /** After a bulk load: see Store.settle. */
  settle(): Promise<void> {
    return this.store.settle();
  }

  /** All rows of a table in id order, a page at a time (never the whole table in memory). */
  async *rowsById<T extends IdTable>(
    table: T,
    pageSize = 2_000,
  ): AsyncGenerator<Selectable<Database[T]>[]> {
    let after: number | null = null;
    for (;;) {
      let query = this.db
        .selectFrom(table as IdTable)
        .selectAll()
        .orderBy('id')
        .limit(pageSize);
      if (after !== null) query = query.where('id', '>', after);
      const rows = (await query.execute()) as unknown as Selectable<Database[T]>[];
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < pageSize) return;
      after = (rows[rows.length - 1] as { id: number }).id;
    }
  }

  /** Project memberships in (project, user) order, a page at a time. */
  memberRows(pageSize = 2_000) {
    return this.rowsByPair('project_members', 'project_id', 'user_id', pageSize);
  }

  /** Merge request approvals in (merge request, user) order, a page at a time. */
  approvalRows(pageSize = 2_000) {
    return this.rowsByPair('merge_request_approvals', 'merge_request_id', 'user_id', pageSize);
  }

  /** Stars in (user, project) order, a page at a time. */
  starRows(pageSize = 2_000) {
    return this.rowsByPair('project_stars', 'user_id', 'project_id', pageSize);
  }

  /** Follows in (follower, followee) order, a page at a time. */
  followRows(pageSize = 2_000) {
    return this.rowsByPair('user_follows', 'follower_id', 'followee_id', pageSize);
  }

  /** Rows keyed by (`first`, `second`), in that order, a page at a time. */
  private async *rowsByPair<T extends (typeof PAIR_TABLES)[number]>(
    table: T,
    first: string,
    second: string,
    pageSize: number,
  ): AsyncGenerator<Selectable<Database[T]>[]> {
    type Key = { first: number; second: number };
    const db = this.db as unknown as Kysely<Record<string, Record<string, number>>>;
    let after: Key | null = null;
    for (;;) {
      let query = db.selectFrom(table).selectAll().orderBy(first).orderBy(second).limit(pageSize);
      if (after !== null) {
        const a: Key = after;
        query = query.where((eb) =>
          eb.or([
            eb(first, '>', a.first),
            eb.and([eb(first, '=', a.first), eb(second, '>', a.second)]),
          ]),
        );
      }
      const rows = await query.execute();
      if (rows.length === 0) return;
      yield rows as unknown as Selectable<Database[T]>[];
      if (rows.length < pageSize) return;
      const last = rows[rows.length - 1]!;
      after = { first: last[first]!, second: last[second]! };
    }
  }

  /** Events in id order with their push payloads, a page at a time. */
  async *eventPages(
    pageSize = 5_000,
  ): AsyncGenerator<{ events: EventRow[]; pushes: Map<number, PushPayloadRow> }> {
    for await (const events of this.rowsById('events', pageSize)) {
      const first = events[0]!.id;
      const last = events[events.length - 1]!.id;
      const payloads = await this.db
        .selectFrom('push_event_payloads')
        .selectAll()
        .where('event_id', '>=', first)
        .where('event_id', '<=', last)
        .execute();
      yield { events, pushes: new Map(payloads.map((p) => [p.event_id, p])) };
    }
  }

  /** Row counts of the exported tables (for progress and ETA). */
  async tableCounts(): Promise<Record<BulkTable, number>> {
    const out = {} as Record<BulkTable, number>;
    for (const table of BULK_TABLES) {
      const row = await this.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      out[table] = Number(row.n);
    }
    return out;
  }

  /** True when nothing a user would see exists yet (no users, projects or events). */
  async isEmpty(): Promise<boolean> {
    for (const table of ['users', 'projects', 'events'] as const) {
      const row = await this.db.selectFrom(table).select('id').limit(1).executeTakeFirst();
      if (row) return false;
    }
    return true;
  }

  /** The highest id per table (0 when empty): generators continue after it. */
  async maxIds(): Promise<Record<IdTable, number>> {
    const out = {} as Record<IdTable, number>;
    for (const table of ID_TABLES) {
      const row = await this.db
        .selectFrom(table as IdTable)
        .select((eb) => eb.fn.max('id').as('m'))
        .executeTakeFirst();
      out[table] = Number(row?.m ?? 0);
    }
    return out;
  }
}
