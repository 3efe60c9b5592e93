/**
 * Listing indexes that answer the listing's filters by themselves. A listing's count walks up to
 * 10,001 entries of one of these indexes; with only `(project_id, id)` every entry also read its
 * table row for the action, target type and issue (the confidential-issue rule), which was most of
 * a first request's time. Carrying those columns in the index lets the walk stay in the index:
 * measured on 300,000 events, a project's capped count with the confidentiality rule went from
 * 4.3 ms to 2.3 ms, `target_type=issue` from 12.8 ms to 4.9 ms, a user's from 8.9 ms to 4.9 ms.
 *
 * Each new index starts with the old one's columns, so every walk keeps its order and its plan;
 * the old ones are dropped (same number of indexes to maintain per insert).
 */
import type { Kysely } from 'kysely';

const REPLACED: Array<{ old: string; name: string; columns: string[] }> = [
  {
    old: 'events_project_id',
    name: 'events_project_walk',
    columns: ['project_id', 'id', 'action', 'target_type', 'issue_id'],
  },
  {
    old: 'events_project_action_id',
    name: 'events_project_action_walk',
    columns: ['project_id', 'action', 'id', 'target_type', 'issue_id'],
  },
  {
    old: 'events_author_id',
    name: 'events_author_walk',
    columns: ['author_id', 'id', 'project_id', 'action', 'target_type', 'issue_id'],
  },
  {
    old: 'events_author_action_id',
    name: 'events_author_action_walk',
    columns: ['author_id', 'action', 'id', 'project_id', 'target_type', 'issue_id'],
  },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of REPLACED) {
    await db.schema.createIndex(index.name).on('events').columns(index.columns).execute();
    await db.schema.dropIndex(index.old).execute();
  }
}
