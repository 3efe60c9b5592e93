/**
 * Confidential tallies: how many events each (project, author, action, target type) has on
 * confidential issues of the event's project. A count subtracted what confidentiality hides by
 * joining every confidential issue to its per-issue tallies (migration 017): 1–2 ms for a user's
 * listing on SQLite with 2,000 confidential issues, and on PostgreSQL a scan the planner would not
 * avoid (150 ms; user counts walked instead, 15 ms). Now the hidden part is a few rows of this table,
 * less the viewer's own confidential issues (which they may see), wherever the issues are.
 *
 * Unlike the tallies of migration 017 this one depends on the issues too, so it has two writers:
 *
 * - events (insert, delete, update): each event of a confidential issue of its project goes in or
 *   out, looked up by the issue's primary key;
 * - issues (insert, delete, and updates of `id`, `project_id` or `confidential`): the issue's
 *   per-issue tallies move out under its old state and in under its new one.
 *
 * On PostgreSQL both writers take the events lock (migration 010) before reading the other side,
 * so the two cannot miss each other: an append that waited for a concurrent flip reads the issue
 * as committed, and a flip that waited for an append reads its per-issue tallies with it (each
 * statement of a trigger function takes a new snapshot under READ COMMITTED). The issue trigger is
 * per row, after the row's own lock, the order every writer of issues and events already follows
 * (a note updates its issue, then appends). SQLite serializes writers.
 */
import { type Kysely, sql } from 'kysely';
import { TAKE_EVENTS_LOCK } from './010_live_events.js';
import {
  ALL_COLUMNS as COLUMNS,
  ALL_KEY as KEY,
  SQLITE_TALLY_TRIGGER_PREFIX,
  createTally,
  tallyStorage,
} from './017_event_tallies.js';
import { type MigrationContext, runSql } from './helpers.js';

/** Every tally table (migrations 017 and 018): bulk loads empty them, `Store.settle` vacuums them. */
export const TALLY_TABLES = ['event_tallies', 'issue_event_tallies', 'confidential_tallies'];

const UPSERT = `ON CONFLICT (${KEY}) DO UPDATE SET n = confidential_tallies.n + excluded.n`;

/** Events of `source` (events, or a transition table) on confidential issues, signed, grouped. */
function fromEvents(source: string, sign: '+' | '-'): string {
  return `INSERT INTO confidential_tallies (${COLUMNS})
    SELECT e.project_id, e.author_id, e.action, coalesce(e.target_type, ''), ${sign}count(*)
    FROM ${source} e JOIN issues ci ON ci.id = e.issue_id AND ci.project_id = e.project_id
    WHERE ci.confidential = 1
    GROUP BY e.project_id, e.author_id, e.action, coalesce(e.target_type, '')
    ${UPSERT}`;
}

/** One issue's per-issue tallies (`row` is NEW or OLD), signed, when that row is confidential. */
function fromIssue(row: 'NEW' | 'OLD', sign: '+' | '-'): string {
  return `INSERT INTO confidential_tallies (${COLUMNS})
    SELECT project_id, author_id, action, target_type, ${sign}n FROM issue_event_tallies
    WHERE issue_id = ${row}.id AND project_id = ${row}.project_id AND ${row}.confidential = 1
    ${UPSERT}`;
}

/**
 * The table from scratch, from the per-issue tallies (a bulk load's re-tally, after them): the
 * caller empties it first.
 */
export const CONFIDENTIAL_RETALLY = `INSERT INTO confidential_tallies (${COLUMNS})
  SELECT t.project_id, t.author_id, t.action, t.target_type, sum(t.n)
  FROM issue_event_tallies t JOIN issues ci ON ci.id = t.issue_id AND ci.project_id = t.project_id
  WHERE ci.confidential = 1
  GROUP BY t.project_id, t.author_id, t.action, t.target_type`;

/** SQLite's row trigger body for one event (`row` NEW or OLD) in or out. */
function eventRow(row: 'NEW' | 'OLD', delta: 1 | -1): string {
  return `INSERT INTO confidential_tallies (${COLUMNS})
    SELECT ${row}.project_id, ${row}.author_id, ${row}.action, coalesce(${row}.target_type, ''), ${delta}
    FROM issues ci
    WHERE ci.id = ${row}.issue_id AND ci.project_id = ${row}.project_id AND ci.confidential = 1
    ${UPSERT};`;
}

/** An update of an issue that can move its events in or out of the table. */
const ISSUE_MOVES = `(OLD.confidential = 1 OR NEW.confidential = 1) AND (OLD.id <> NEW.id
  OR OLD.project_id <> NEW.project_id OR OLD.confidential <> NEW.confidential)`;

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await createTally(db, ctx, 'confidential_tallies', COLUMNS, KEY);
  await runSql(
    db,
    'CREATE INDEX confidential_tallies_author ON confidential_tallies (author_id, project_id, action)',
  );
  // What the viewer may see of confidential issues is their own: found by author (a user's listing
  // spans projects), then by project.
  await runSql(db, 'DROP INDEX issues_confidential');
  await runSql(
    db,
    'CREATE INDEX issues_confidential ON issues (author_id, project_id) WHERE confidential = 1',
  );

  if (ctx.dialect === 'sqlite') {
    // Named like migration 017's, so bulk loads set them aside too (and tally again at the end).
    const p = `${SQLITE_TALLY_TRIGGER_PREFIX}confidential_`;
    const triggers = [
      `${p}event_insert AFTER INSERT ON events BEGIN ${eventRow('NEW', 1)} END`,
      `${p}event_delete AFTER DELETE ON events BEGIN ${eventRow('OLD', -1)} END`,
      `${p}event_update AFTER UPDATE OF project_id, author_id, action, target_type, issue_id
         ON events BEGIN ${eventRow('OLD', -1)} ${eventRow('NEW', 1)} END`,
      `${p}issue_insert AFTER INSERT ON issues WHEN NEW.confidential = 1
         BEGIN ${fromIssue('NEW', '+')}; END`,
      `${p}issue_delete AFTER DELETE ON issues WHEN OLD.confidential = 1
         BEGIN ${fromIssue('OLD', '-')}; END`,
      `${p}issue_update AFTER UPDATE OF id, project_id, confidential ON issues
         WHEN ${ISSUE_MOVES} BEGIN ${fromIssue('OLD', '-')}; ${fromIssue('NEW', '+')}; END`,
    ];
    for (const trigger of triggers) await runSql(db, `CREATE TRIGGER ${trigger}`);
  } else {
    const lock = TAKE_EVENTS_LOCK;
    const fn = async (name: string, body: string) =>
      sql
        .raw(
          `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN ${lock} ${body} RETURN NULL; END $$`,
        )
        .execute(db);
    await fn('events_confidential_insert', `${fromEvents('new_rows', '+')};`);
    await fn('events_confidential_delete', `${fromEvents('old_rows', '-')};`);
    await fn(
      'events_confidential_update',
      `${fromEvents('old_rows', '-')}; ${fromEvents('new_rows', '+')};`,
    );
    await fn('events_confidential_truncate', 'DELETE FROM confidential_tallies;');
    await fn(
      'issues_confidential_move',
      `IF TG_OP <> 'INSERT' THEN ${fromIssue('OLD', '-')}; END IF;
       IF TG_OP <> 'DELETE' THEN ${fromIssue('NEW', '+')}; END IF;`,
    );
    const triggers = [
      `events_confidential_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_rows
         FOR EACH STATEMENT EXECUTE FUNCTION events_confidential_insert()`,
      `events_confidential_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_rows
         FOR EACH STATEMENT EXECUTE FUNCTION events_confidential_delete()`,
      `events_confidential_update AFTER UPDATE ON events
         REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
         FOR EACH STATEMENT EXECUTE FUNCTION events_confidential_update()`,
      `events_confidential_truncate AFTER TRUNCATE ON events
         FOR EACH STATEMENT EXECUTE FUNCTION events_confidential_truncate()`,
      `issues_confidential_insert AFTER INSERT ON issues FOR EACH ROW
         WHEN (NEW.confidential = 1) EXECUTE FUNCTION issues_confidential_move()`,
      `issues_confidential_delete AFTER DELETE ON issues FOR EACH ROW
         WHEN (OLD.confidential = 1) EXECUTE FUNCTION issues_confidential_move()`,
      `issues_confidential_update AFTER UPDATE OF id, project_id, confidential ON issues
         FOR EACH ROW WHEN (${ISSUE_MOVES}) EXECUTE FUNCTION issues_confidential_move()`,
      // No issues, nothing confidential.
      `issues_confidential_truncate AFTER TRUNCATE ON issues
         FOR EACH STATEMENT EXECUTE FUNCTION events_confidential_truncate()`,
    ];
    for (const trigger of triggers) await runSql(db, `CREATE TRIGGER ${trigger}`);
    // Rewritten on every append of an event of a confidential issue: as migration 017's tallies.
    await tallyStorage(db, 'confidential_tallies');
  }
  await runSql(db, CONFIDENTIAL_RETALLY);
}
