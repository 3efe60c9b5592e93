/**
 * A user's events by project: `(author_id, project_id, id)`, carrying the columns a listing's
 * filters and visibility read (as migration 014's do). A user's listing walked the author's events
 * in id order (`events_author_walk`) and dropped those of projects the viewer cannot read one by
 * one: a member of a private project with 36,000 events there and 50 elsewhere cost an outsider
 * 10–14 ms per page, and a page's cost grew with the hidden events, not with the page. With this
 * index the listing merges one walk per project the viewer may read (store/events.ts `walk`), so a
 * page reads O(projects × page) entries however many events the viewer cannot see.
 *
 * `events_author_walk` stays: it is the single walk of a user whose projects the viewer reads all
 * (their own listing, an admin's, a public contributor's), which needs no merge.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './helpers.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await db.schema
    .createIndex('events_author_project_walk')
    .on('events')
    .columns(['author_id', 'project_id', 'id', 'action', 'target_type', 'issue_id'])
    .execute();
  if (ctx.dialect !== 'sqlite') return;
  // A database analyzed before (a bulk load settles with PRAGMA optimize) has statistics for every
  // other index of events and none for this one, and SQLite then guesses that `author_id = ?`
  // finds ten rows here: it walked a user's whole history on this index and sorted it (61 ms on
  // 1,000,000 events) instead of walking events_author_walk in id order. Measure it like the rest.
  const analyzed = await sql<{ n: number }>`
    SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'`.execute(
    db,
  );
  if (Number(analyzed.rows[0]?.n) > 0) await sql`ANALYZE events_author_project_walk`.execute(db);
}
