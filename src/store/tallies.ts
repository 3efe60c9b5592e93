/** The event tallies (migrations 017, 018) as the live store knows them; migrations keep their own copies. */
import { type RawBuilder, sql } from 'kysely';

/** Every tally table: bulk loads empty and refill them, `Store.settle` vacuums them. */
export const TALLY_TABLES = ['event_tallies', 'issue_event_tallies', 'confidential_tallies'];

/** SQLite's tally triggers are named from this prefix (bulk loads set them aside). */
export const SQLITE_TALLY_TRIGGER_PREFIX = 'events_tally_';

const TARGET = "coalesce(target_type, '')";

/**
 * Statements that empty the tallies of `projects` and count them again from their events and
 * issues as they stand: a bulk load recounts only the projects it wrote events in.
 */
export function retallyStatements(projects: readonly number[]): RawBuilder<unknown>[] {
  const among = (column: string) => sql`${sql.ref(column)} IN (${sql.join(projects)})`;
  return [
    ...TALLY_TABLES.map(
      (table) => sql`DELETE FROM ${sql.table(table)} WHERE ${among('project_id')}`,
    ),
    sql`INSERT INTO event_tallies (project_id, author_id, action, target_type, n)
      SELECT project_id, author_id, action, ${sql.raw(TARGET)}, count(*) FROM events
      WHERE ${among('project_id')}
      GROUP BY project_id, author_id, action, ${sql.raw(TARGET)}`,
    sql`INSERT INTO issue_event_tallies (issue_id, project_id, author_id, action, target_type, n)
      SELECT issue_id, project_id, author_id, action, ${sql.raw(TARGET)}, count(*) FROM events
      WHERE issue_id IS NOT NULL AND ${among('project_id')}
      GROUP BY issue_id, project_id, author_id, action, ${sql.raw(TARGET)}`,
    // From the per-issue tallies just made, for the issues that are confidential.
    sql`INSERT INTO confidential_tallies (project_id, author_id, action, target_type, n)
      SELECT t.project_id, t.author_id, t.action, t.target_type, sum(t.n)
      FROM issue_event_tallies t JOIN issues ci ON ci.id = t.issue_id AND ci.project_id = t.project_id
      WHERE ci.confidential = 1 AND ${among('t.project_id')}
      GROUP BY t.project_id, t.author_id, t.action, t.target_type`,
  ];
}
