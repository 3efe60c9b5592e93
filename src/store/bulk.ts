/**
 * Bulk data paths: batched multi-row inserts (import, seed), keyset reads of whole tables
 * (export), the keys an import must not collide with, and PostgreSQL sequence repair after
 * explicit ids. Statements are built by Kysely once per batch shape and reused with new parameters:
 * compiling a 1,000-row insert for each of a million rows' batches would cost more than running it.
 */
import { CompiledQuery, type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { ExistingKeys } from '../domain/record-references.js';
import type { Dialect } from './database.js';
import type { Database, EventRow, PushPayloadRow } from './schema.js';

/** Tables the import/export format covers, in dependency order (parents first). */
export const BULK_TABLES = [
  'users',
  'projects',
  'project_members',
  'milestones',
  'issues',
  'merge_requests',
  'snippets',
  'notes',
  'events',
  'push_event_payloads',
  'personal_access_tokens',
  'oauth_applications',
] as const;
export type BulkTable = (typeof BULK_TABLES)[number];

/** Every column, in insert order; a row missing a column inserts null there. */
const COLUMNS: { [T in BulkTable]: readonly (keyof Database[T] & string)[] } = {
  users: [
    'id',
    'username',
    'name',
    'email',
    'state',
    'password_hash',
    'admin',
    'two_factor_enabled',
    'otp_secret',
    'otp_recovery_digests',
    'private_profile',
    'avatar_url',
    'created_at',
  ],
  projects: [
    'id',
    'namespace',
    'path',
    'full_path',
    'name',
    'description',
    'visibility',
    'creator_id',
    'created_at',
  ],
  project_members: ['project_id', 'user_id', 'access_level'],
  milestones: ['id', 'project_id', 'iid', 'title', 'created_at'],
  issues: ['id', 'project_id', 'iid', 'title', 'author_id', 'confidential', 'state', 'created_at'],
  merge_requests: ['id', 'project_id', 'iid', 'title', 'author_id', 'state', 'created_at'],
  snippets: ['id', 'project_id', 'title', 'author_id', 'visibility', 'created_at'],
  notes: [
    'id',
    'project_id',
    'author_id',
    'body',
    'noteable_type',
    'noteable_id',
    'system',
    'attachment',
    'created_at',
    'updated_at',
  ],
  events: [
    'id',
    'project_id',
    'author_id',
    'action',
    'target_type',
    'target_id',
    'issue_id',
    'created_at',
  ],
  push_event_payloads: [
    'event_id',
    'action',
    'ref_type',
    'ref',
    'commit_from',
    'commit_to',
    'commit_count',
    'commit_title',
    'commits',
  ],
  personal_access_tokens: [
    'id',
    'user_id',
    'name',
    'token_digest',
    'scopes',
    'expires_at',
    'revoked',
    'last_used_at',
    'created_at',
  ],
  oauth_applications: [
    'id',
    'uid',
    'secret_digest',
    'name',
    'redirect_uris',
    'scopes',
    'confidential',
    'owner_id',
    'created_at',
  ],
};

/** Well under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters per statement. */
const MAX_PARAMS = 16_000;
const MAX_ROWS = 1_000;

export type BulkRow<T extends BulkTable> = Insertable<Database[T]>;

/**
 * Buffers rows per table and writes them as multi-row inserts. When any buffer fills, every
 * buffer is written in dependency order, so a child row never reaches the database before its
 * parent (foreign keys are checked per statement on both dialects).
 */
export class BulkWriter {
  private readonly buffers = new Map<BulkTable, unknown[][]>();
  private readonly statements = new Map<string, string>();
  private isFull = false;

  constructor(private readonly db: Kysely<Database>) {}

  static rowsPerStatement(table: BulkTable): number {
    return Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / COLUMNS[table].length));
  }

  /** Buffers a row; the caller flushes once `full` says a statement's worth is waiting. */
  add<T extends BulkTable>(table: T, row: BulkRow<T>): void {
    const values = COLUMNS[table].map((c) => (row as Record<string, unknown>)[c] ?? null);
    let buffer = this.buffers.get(table);
    if (!buffer) this.buffers.set(table, (buffer = []));
    buffer.push(values);
    if (buffer.length >= BulkWriter.rowsPerStatement(table)) this.isFull = true;
  }

  /** True when some table has a full statement's worth of rows buffered. */
  get full(): boolean {
    return this.isFull;
  }

  async flush(): Promise<void> {
    for (const table of BULK_TABLES) {
      const buffer = this.buffers.get(table);
      if (!buffer || buffer.length === 0) continue;
      const size = BulkWriter.rowsPerStatement(table);
      for (let start = 0; start < buffer.length; start += size) {
        const chunk = buffer.slice(start, start + size);
        await this.db.executeQuery(
          CompiledQuery.raw(this.statement(table, chunk.length), chunk.flat()),
        );
      }
      buffer.length = 0;
    }
    this.isFull = false;
  }

  /** The insert text for `rows` rows of `table`, built by Kysely once per shape. */
  private statement(table: BulkTable, rows: number): string {
    const key = `${table}:${rows}`;
    let text = this.statements.get(key);
    if (text === undefined) {
      const blank = Object.fromEntries(COLUMNS[table].map((c) => [c, null]));
      text = this.db
        .insertInto(table)
        .values(Array.from({ length: rows }, () => blank) as never)
        .compile().sql;
      this.statements.set(key, text);
    }
    return text;
  }
}

/** Tables keyed by an integer `id`. */
export type IdTable = Exclude<BulkTable, 'project_members' | 'push_event_payloads'>;

/** All rows of a table in id order, a page at a time (never the whole table in memory). */
export async function* rowsById<T extends IdTable>(
  db: Kysely<Database>,
  table: T,
  pageSize = 2_000,
): AsyncGenerator<Selectable<Database[T]>[]> {
  let after: number | null = null;
  for (;;) {
    let query = db
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

export async function* memberRows(db: Kysely<Database>, pageSize = 2_000) {
  let after: { project_id: number; user_id: number } | null = null;
  for (;;) {
    let query = db
      .selectFrom('project_members')
      .selectAll()
      .orderBy('project_id')
      .orderBy('user_id')
      .limit(pageSize);
    if (after !== null) {
      const a: { project_id: number; user_id: number } = after;
      query = query.where((eb) =>
        eb.or([
          eb('project_id', '>', a.project_id),
          eb.and([eb('project_id', '=', a.project_id), eb('user_id', '>', a.user_id)]),
        ]),
      );
    }
    const rows = await query.execute();
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]!;
  }
}

/** Events in id order with their push payloads, a page at a time. */
export async function* eventPages(
  db: Kysely<Database>,
  pageSize = 5_000,
): AsyncGenerator<{ events: EventRow[]; pushes: Map<number, PushPayloadRow> }> {
  for await (const events of rowsById(db, 'events', pageSize)) {
    const first = events[0]!.id;
    const last = events[events.length - 1]!.id;
    const payloads = await db
      .selectFrom('push_event_payloads')
      .selectAll()
      .where('event_id', '>=', first)
      .where('event_id', '<=', last)
      .execute();
    yield { events, pushes: new Map(payloads.map((p) => [p.event_id, p])) };
  }
}

/** Row counts of the exported tables (for progress and ETA). */
export async function tableCounts(db: Kysely<Database>): Promise<Record<BulkTable, number>> {
  const out = {} as Record<BulkTable, number>;
  for (const table of BULK_TABLES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

/** True when nothing a user would see exists yet (no users, projects or events). */
export async function isEmpty(db: Kysely<Database>): Promise<boolean> {
  for (const table of ['users', 'projects', 'events'] as const) {
    const row = await db.selectFrom(table).select('id').limit(1).executeTakeFirst();
    if (row) return false;
  }
  return true;
}

/** The highest id per table (0 when empty): generators continue after it. */
export async function maxIds(db: Kysely<Database>): Promise<Record<IdTable, number>> {
  const out = {} as Record<IdTable, number>;
  for (const table of BULK_TABLES) {
    if (table === 'project_members' || table === 'push_event_payloads') continue;
    const row = await db
      .selectFrom(table as IdTable)
      .select((eb) => eb.fn.max('id').as('m'))
      .executeTakeFirst();
    out[table] = Number(row?.m ?? 0);
  }
  return out;
}

/** Ids and unique keys an import must not collide with (everything but events). */
export async function existingKeys(db: Kysely<Database>): Promise<ExistingKeys> {
  return {
    users: await db.selectFrom('users').select(['id', 'username', 'email']).execute(),
    projects: await db.selectFrom('projects').select(['id', 'full_path']).execute(),
    members: await db.selectFrom('project_members').select(['project_id', 'user_id']).execute(),
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
    tokens: await db.selectFrom('personal_access_tokens').select(['id', 'token_digest']).execute(),
    applications: await db.selectFrom('oauth_applications').select(['id', 'uid']).execute(),
  };
}

/** Existing event ids, a page at a time. */
export async function* eventIdPages(db: Kysely<Database>, pageSize = 50_000) {
  let after = 0;
  for (;;) {
    const rows = await db
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
 * move each past the highest id so the next ordinary insert does not collide. SQLite needs
 * nothing (INTEGER PRIMARY KEY takes max(rowid) + 1).
 */
export async function resetSequences(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const table of BULK_TABLES) {
    if (table === 'project_members' || table === 'push_event_payloads') continue;
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'),
      coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(db);
  }
}
