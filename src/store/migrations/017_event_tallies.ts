/**
 * Event tallies: how many events each (project, author, action, target type) has, and the same per
 * issue, kept by triggers in the writing transaction. A listing's first request used to count its
 * events by walking up to 10,001 of them (GitLab's capped count), with the confidentiality check
 * looking up each event's issue: 2–6 ms of the 7 ms a first request took on 1,000,000 events.
 * Summing tallies costs a few hundred rows whatever the listing's size (store/event-count.ts).
 *
 * Both tables are functions of the events table alone: inserting, updating and deleting events
 * moves them, nothing else does. Confidentiality is not tallied (it belongs to the issue and
 * changes with it); a count reads it at query time, joining the per-issue tallies of confidential
 * issues to subtract the events the viewer may not see.
 *
 * - SQLite: row triggers (writers are serialized). Bulk loads set them aside and tally again at the
 *   end (store/bulk-load.ts `bulkLoad`).
 * - PostgreSQL: statement triggers over transition tables, one grouped upsert per statement, so a
 *   seed's batch of thousands of events costs a few hundred upserts. Every one takes the events
 *   lock (migration 010) before the tally rows' locks, so no two writers deadlock on them.
 */
import { type Kysely, sql } from 'kysely';
import { TAKE_EVENTS_LOCK } from './010_live_events.js';
import { type MigrationContext, runSql } from './helpers.js';

/** Grouped rows of `source` (events, or a transition table), signed, as tally rows. */
function grouped(source: string, sign: '+' | '-'): { all: string; issues: string } {
  return {
    all: `SELECT project_id, author_id, action, coalesce(target_type, ''), ${sign}count(*)
          FROM ${source} WHERE true GROUP BY project_id, author_id, action, coalesce(target_type, '')`,
    issues: `SELECT issue_id, project_id, author_id, action, coalesce(target_type, ''), ${sign}count(*)
          FROM ${source} WHERE issue_id IS NOT NULL
          GROUP BY issue_id, project_id, author_id, action, coalesce(target_type, '')`,
  };
}

export const ALL_COLUMNS = 'project_id, author_id, action, target_type, n';
const ISSUE_COLUMNS = 'issue_id, project_id, author_id, action, target_type, n';
export const ALL_KEY = 'project_id, author_id, action, target_type';
const ISSUE_KEY = 'issue_id, author_id, action, target_type, project_id';

/** Statements adding `source`'s events (signed) to both tallies. */
export function tallyStatements(source: string, sign: '+' | '-'): string[] {
  const { all, issues } = grouped(source, sign);
  return [
    `INSERT INTO event_tallies (${ALL_COLUMNS}) ${all}
     ON CONFLICT (${ALL_KEY}) DO UPDATE SET n = event_tallies.n + excluded.n`,
    `INSERT INTO issue_event_tallies (${ISSUE_COLUMNS}) ${issues}
     ON CONFLICT (${ISSUE_KEY}) DO UPDATE SET n = issue_event_tallies.n + excluded.n`,
  ];
}

/** SQLite's row trigger body: one event (`row` is NEW or OLD) in or out of both tallies. */
function rowStatements(row: 'NEW' | 'OLD', delta: 1 | -1): string {
  return `
    INSERT INTO event_tallies (${ALL_COLUMNS})
      VALUES (${row}.project_id, ${row}.author_id, ${row}.action, coalesce(${row}.target_type, ''), ${delta})
      ON CONFLICT (${ALL_KEY}) DO UPDATE SET n = n + ${delta};
    INSERT INTO issue_event_tallies (${ISSUE_COLUMNS})
      SELECT ${row}.issue_id, ${row}.project_id, ${row}.author_id, ${row}.action,
             coalesce(${row}.target_type, ''), ${delta}
      WHERE ${row}.issue_id IS NOT NULL
      ON CONFLICT (${ISSUE_KEY}) DO UPDATE SET n = n + ${delta};`;
}

/** SQLite's tally triggers (bulk loads drop and recreate them by this prefix). */
export const SQLITE_TALLY_TRIGGER_PREFIX = 'events_tally_';

/** A tally table: integer columns, the target type, a count, keyed as its upserts say. */
export function createTally(
  db: Kysely<unknown>,
  ctx: MigrationContext,
  name: string,
  columns: string,
  key: string,
) {
  const int = ctx.dialect === 'sqlite' ? 'INTEGER' : 'bigint';
  return sql
    .raw(
      `CREATE TABLE ${name} (
         ${columns
           .split(', ')
           .map((c) => `${c} ${c === 'target_type' ? 'TEXT' : int} NOT NULL`)
           .join(', ')},
         PRIMARY KEY (${key})
       )${ctx.dialect === 'sqlite' ? ' WITHOUT ROWID' : ''}`,
    )
    .execute(db);
}

/**
 * PostgreSQL storage for a tally table. Every append rewrites a tally row or two: room on each page
 * lets PostgreSQL keep the new version beside the old one (a HOT update, no index entry), and a
 * vacuum after every 1,000 dead rows rather than a fifth of the table keeps the small tables small.
 */
export function tallyStorage(db: Kysely<unknown>, table: string) {
  return sql
    .raw(
      `ALTER TABLE ${table} SET (fillfactor = 50, autovacuum_vacuum_scale_factor = 0,
       autovacuum_vacuum_threshold = 1000, autovacuum_analyze_scale_factor = 0,
       autovacuum_analyze_threshold = 1000)`,
    )
    .execute(db);
}

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await createTally(db, ctx, 'event_tallies', ALL_COLUMNS, ALL_KEY);
  // Author listings (a user's events in the projects the viewer can read).
  await runSql(
    db,
    'CREATE INDEX event_tallies_author ON event_tallies (author_id, project_id, action)',
  );
  await createTally(db, ctx, 'issue_event_tallies', ISSUE_COLUMNS, ISSUE_KEY);
  // A count starts from the confidential issues (a few percent of them), by project or by author.
  // The literal `confidential = 1` lets both databases use it for queries that say so literally.
  await runSql(
    db,
    'CREATE INDEX issues_confidential ON issues (project_id, author_id) WHERE confidential = 1',
  );

  if (ctx.dialect === 'postgres') {
    // Migration 016's insert checks plan with sequential scans disabled, which prices the scan of
    // their transition table at 10^10: PostgreSQL then counted the events above the inserted id
    // with two parallel workers (and could compile the plan, `jit_above_cost`), 55 ms of a 61 ms
    // append on 1,000,000 events, against 1.9 ms without. The server's connections turn both off
    // (store/database.ts); this covers every other session's inserts too.
    for (const table of ['events', 'push_event_payloads']) {
      for (const setting of ['jit = off', 'max_parallel_workers_per_gather = 0']) {
        await runSql(db, `ALTER FUNCTION ${table}_listing_version_insert() SET ${setting}`);
      }
    }
    for (const table of ['event_tallies', 'issue_event_tallies']) await tallyStorage(db, table);
  }
  if (ctx.dialect === 'sqlite') {
    const p = SQLITE_TALLY_TRIGGER_PREFIX;
    await runSql(
      db,
      `CREATE TRIGGER ${p}insert AFTER INSERT ON events BEGIN ${rowStatements('NEW', 1)} END`,
    );
    await runSql(
      db,
      `CREATE TRIGGER ${p}delete AFTER DELETE ON events BEGIN ${rowStatements('OLD', -1)} END`,
    );
    await runSql(
      db,
      `CREATE TRIGGER ${p}update AFTER UPDATE OF project_id, author_id, action, target_type, issue_id
         ON events BEGIN ${rowStatements('OLD', -1)} ${rowStatements('NEW', 1)} END`,
    );
  } else {
    // Every writer of tally rows holds the events lock first (appends already do, migration 010),
    // so two statements never take the same rows in different orders: a hand-typed delete of
    // events waits for an append instead of deadlocking with it.
    const lock = TAKE_EVENTS_LOCK;
    const body = (statements: string[]) =>
      `BEGIN ${lock} ${statements.map((s) => `${s};`).join('\n')} RETURN NULL; END`;
    const fns: Array<[string, string, string[]]> = [
      ['insert', 'INSERT', tallyStatements('new_rows', '+')],
      ['delete', 'DELETE', tallyStatements('old_rows', '-')],
      [
        'update',
        'UPDATE',
        [...tallyStatements('old_rows', '-'), ...tallyStatements('new_rows', '+')],
      ],
    ];
    for (const [name, event, statements] of fns) {
      await runSql(
        db,
        `CREATE FUNCTION events_tally_${name}() RETURNS trigger LANGUAGE plpgsql AS $$
           ${body(statements)} $$`,
      );
      const tables =
        event === 'INSERT'
          ? 'NEW TABLE AS new_rows'
          : event === 'DELETE'
            ? 'OLD TABLE AS old_rows'
            : 'OLD TABLE AS old_rows NEW TABLE AS new_rows';
      await runSql(
        db,
        `CREATE TRIGGER events_tally_${name} AFTER ${event} ON events
           REFERENCING ${tables} FOR EACH STATEMENT EXECUTE FUNCTION events_tally_${name}()`,
      );
    }
    await runSql(
      db,
      `CREATE FUNCTION events_tally_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN ${lock} DELETE FROM event_tallies; DELETE FROM issue_event_tallies; RETURN NULL;
         END $$`,
    );
    await runSql(
      db,
      `CREATE TRIGGER events_tally_truncate AFTER TRUNCATE ON events
         FOR EACH STATEMENT EXECUTE FUNCTION events_tally_truncate()`,
    );
  }
  for (const statement of tallyStatements('events', '+')) await runSql(db, statement);
}
