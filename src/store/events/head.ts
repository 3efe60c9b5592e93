/**
 * How far the event log has settled, and what changed in it: the head, the listing epochs, the
 * change feed. Every id at or below the head is settled: SQLite serializes writers; on PostgreSQL
 * every appender holds one lock from before its id is drawn until it commits (append.ts).
 */
import { type Kysely, sql } from 'kysely';
import { ALL_TABLES } from '../row-cache.js';
import type { Database, EventRow } from '../schema.js';
import type { EventContext } from './query.js';

/** What a reader needs to know whether its cached listings are current. */
export interface ListingHead {
  /** The highest committed event id. */
  id: number;
  /** The epoch of all projects (`listing_epochs` row 0): moves when any project's moves. */
  epoch: number;
  /** Event deletions so far (row -1): SQLite may reuse a deleted highest id. */
  deletions: number;
  /** The listing version (migrations 009, 016): moves when what written events show changes. */
  version: number;
  /** PostgreSQL: the shared reading it came from (`TurnReading.seq`); absent on SQLite. */
  seq?: number;
}

/** One appended event, as the change feed reports it. */
export type EventChange = Pick<
  EventRow,
  'id' | 'project_id' | 'author_id' | 'action' | 'target_type'
>;

/** The head from the shared turn reading (PostgreSQL), else read now. */
export async function head(ctx: EventContext): Promise<ListingHead> {
  return ctx.turnReading ? ctx.turnReading() : settledHead(ctx.db);
}

/** The head, the epoch, the deletions, the listing version (and the row counter): one snapshot. */
export async function settledHead(db: Kysely<Database>): Promise<ListingHead>;
export async function settledHead(
  db: Kysely<Database>,
  rowCounter: true,
): Promise<ListingHead & { rowVersion: number }>;
export async function settledHead(db: Kysely<Database>, rowCounter = false) {
  const { rows } = await sql<Record<string, number | string | null>>`SELECT
    (SELECT max(id) FROM events) AS id,
    (SELECT epoch FROM listing_epochs WHERE project_id = 0) AS epoch,
    (SELECT epoch FROM listing_epochs WHERE project_id = -1) AS deletions,
    (SELECT value FROM listing_version WHERE id = 1) AS version${
      rowCounter
        ? sql`, (SELECT value FROM row_versions WHERE name = ${ALL_TABLES}) AS "rowVersion"`
        : sql``
    }`.execute(db);
  const n = (column: string) => Number(rows[0]?.[column] ?? 0);
  const head = { id: n('id'), epoch: n('epoch'), deletions: n('deletions'), version: n('version') };
  return rowCounter ? { ...head, rowVersion: n('rowVersion') } : head;
}

/** Every project's epoch (projects never changed have none: 0). */
export async function epochs(ctx: EventContext): Promise<Map<number, number>> {
  const rows = await ctx.db.selectFrom('listing_epochs').selectAll().execute();
  return new Map(rows.map((r) => [r.project_id, Number(r.epoch)]));
}

/**
 * Moves a project's epoch (and the all-projects one) in the caller's transaction, for changes the
 * triggers of migration 013 do not see. Null moves only the all-projects epoch.
 */
export async function bumpEpoch(ctx: EventContext, projectId: number | null): Promise<void> {
  const ids = projectId === null || projectId === 0 ? [0] : [projectId, 0];
  for (const id of ids) {
    await ctx.db
      .insertInto('listing_epochs')
      .values({ project_id: id, epoch: 1 })
      .onConflict((oc) =>
        oc.column('project_id').doUpdateSet({ epoch: sql`listing_epochs.epoch + 1` }),
      )
      .execute();
  }
}

/**
 * Events after `afterId` in id order, without visibility: who may be concerned (the feed). Read
 * on every move of the head, by every process: planned once (`prepared`), as any plan of it walks
 * the primary key from `afterId`.
 */
function appended(ctx: EventContext, afterId: number) {
  return ctx.prepared
    .selectFrom('events')
    .select(['id', 'project_id', 'author_id', 'action', 'target_type'])
    .where('id', '>', afterId)
    .orderBy('id');
}

export function changes(ctx: EventContext, afterId: number, upTo: number): Promise<EventChange[]> {
  return appended(ctx, afterId).where('id', '<=', upTo).execute();
}

export function appendedAfter(ctx: EventContext, afterId: number, limit: number) {
  return appended(ctx, afterId).limit(limit).execute();
}

/** The highest event id (0 for none): events are only ever appended, so its rate is theirs. */
export async function newestId(ctx: EventContext): Promise<number> {
  const row = await ctx.db
    .selectFrom('events')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}
