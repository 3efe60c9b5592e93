/**
 * What GitLab allows once becomes a constraint, not only a check before the write: one open merge
 * request per source and target branch of a project, one milestone per title in a project. Two
 * parallel writes both passed the check on PostgreSQL and both wrote; now the second one's insert
 * fails, and the write runs again to answer as after the first (services/content/content.ts).
 *
 * Merge requests imported without their branches (an activity export may leave them out: both
 * empty) are not compared: nothing says they are the same request.
 *
 * Rows already breaking a rule are kept, the oldest one as it was:
 * - a later open merge request on the same branches is closed (its title, description, notes and
 *   approvals stay; it can be reopened once the older one is merged or closed), because which of
 *   two identical open requests a reader meant cannot be decided, and closing loses nothing;
 * - a later milestone with a title already used gets its id appended to its title, so issues and
 *   merge requests keep pointing at it and a reader can still tell which one it was.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const now = Date.now();
  await sql`
    UPDATE merge_requests SET state = 'closed', closed_at = ${now}, updated_at = ${now}
    WHERE state = 'opened' AND source_branch <> '' AND EXISTS (
      SELECT 1 FROM merge_requests older
      WHERE older.project_id = merge_requests.project_id
        AND older.source_branch = merge_requests.source_branch
        AND older.target_branch = merge_requests.target_branch
        AND older.state = 'opened' AND older.id < merge_requests.id)`.execute(db);
  await sql`
    CREATE UNIQUE INDEX merge_requests_open_branches
    ON merge_requests (project_id, source_branch, target_branch)
    WHERE state = 'opened' AND source_branch <> ''`.execute(db);

  await sql`
    UPDATE milestones SET title = title || ' (' || CAST(id AS text) || ')', updated_at = ${now}
    WHERE EXISTS (
      SELECT 1 FROM milestones older
      WHERE older.project_id = milestones.project_id AND older.title = milestones.title
        AND older.id < milestones.id)`.execute(db);
  await sql`CREATE UNIQUE INDEX milestones_project_title ON milestones (project_id, title)`.execute(
    db,
  );
}
