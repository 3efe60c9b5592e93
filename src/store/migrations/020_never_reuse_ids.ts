/**
 * Ids are never handed out twice, for every table an event or a webhook delivery points to.
 *
 * An `INTEGER PRIMARY KEY` without `AUTOINCREMENT` gives a new SQLite row the highest id in the
 * table plus one: delete the newest milestone of a public project, create one in a private
 * project, and it takes the deleted one's id, so the public project's "destroyed" event named the
 * private title. With `AUTOINCREMENT` SQLite keeps the highest id it ever gave in
 * `sqlite_sequence` and never goes below it.
 *
 * SQLite cannot add `AUTOINCREMENT` to a table: each one is rebuilt (SQLite's own procedure for
 * schema changes), keeping every row with its id, every index and trigger of the table and the
 * foreign keys of others, in one transaction, with foreign keys off while a parent is briefly gone
 * (and checked before the commit). Rows are reinserted before the table's triggers exist again,
 * so tallies and versions do not count them twice.
 *
 * Each sequence then starts above the highest id the table holds and the highest id anything still
 * points to (events and deliveries of rows already deleted), so not even a row deleted before this
 * migration has its id given again.
 *
 * PostgreSQL needs no change: `serial` columns draw from sequences, which never hand out a value
 * twice (a rolled-back insert leaves a gap), and the importer only ever moves them forward.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, runSql } from './helpers.js';

/** The rebuilt tables, parents before children, with what points at their ids. */
export const NEVER_REUSED: Array<{ table: string; pointers: string[] }> = [
  {
    table: 'users',
    pointers: [
      'SELECT max(author_id) FROM events',
      "SELECT max(target_id) FROM events WHERE target_type = 'User'",
    ],
  },
  {
    table: 'projects',
    pointers: [
      'SELECT max(project_id) FROM events',
      "SELECT max(target_id) FROM events WHERE target_type = 'Project'",
      'SELECT max(project_id) FROM project_hooks',
    ],
  },
  {
    table: 'issues',
    pointers: [
      "SELECT max(target_id) FROM events WHERE target_type = 'Issue'",
      'SELECT max(issue_id) FROM events',
      "SELECT max(noteable_id) FROM notes WHERE noteable_type = 'Issue'",
    ],
  },
  {
    table: 'merge_requests',
    pointers: [
      "SELECT max(target_id) FROM events WHERE target_type = 'MergeRequest'",
      "SELECT max(noteable_id) FROM notes WHERE noteable_type = 'MergeRequest'",
    ],
  },
  {
    table: 'milestones',
    pointers: [
      "SELECT max(target_id) FROM events WHERE target_type = 'Milestone'",
      'SELECT max(milestone_id) FROM issues',
      'SELECT max(milestone_id) FROM merge_requests',
    ],
  },
  {
    table: 'snippets',
    pointers: [
      "SELECT max(target_id) FROM events WHERE target_type = 'Snippet'",
      "SELECT max(noteable_id) FROM notes WHERE noteable_type = 'Snippet'",
    ],
  },
  { table: 'notes', pointers: ["SELECT max(target_id) FROM events WHERE target_type = 'Note'"] },
  {
    table: 'events',
    pointers: [
      'SELECT max(event_id) FROM push_event_payloads',
      'SELECT max(event_id) FROM webhook_deliveries',
    ],
  },
  { table: 'project_hooks', pointers: ['SELECT max(hook_id) FROM webhook_deliveries'] },
  { table: 'webhook_deliveries', pointers: [] },
];

/** The id column as Kysely's schema builder wrote it (migrations 001, 008, 011). */
const ID_COLUMN = /"id" integer primary key(?! autoincrement)/;

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect !== 'sqlite') return;
  // Kysely runs SQLite migrations outside a transaction: this one takes its own, so a failure
  // leaves every table as it was. Foreign keys can only be switched off outside one.
  const enforced = await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(db);
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  await sql`BEGIN IMMEDIATE`.execute(db);
  try {
    await rebuildAll(db);
    await sql`COMMIT`.execute(db);
  } catch (error) {
    await sql`ROLLBACK`.execute(db);
    throw error;
  } finally {
    if (Number(enforced.rows[0]?.foreign_keys) === 1) {
      await sql`PRAGMA foreign_keys = ON`.execute(db);
    }
  }
}

async function rebuildAll(db: Kysely<unknown>): Promise<void> {
  // Should foreign keys still be enforced (they cannot be switched off by a caller that already
  // began a transaction), their checks wait for the commit, when every row is back.
  await sql`PRAGMA defer_foreign_keys = ON`.execute(db);
  const analyzed = await hasTable(db, 'sqlite_stat1');
  // Dropping a hook would then delete its deliveries: they wait here for their own rebuild.
  await sql`CREATE TEMP TABLE kept_webhook_deliveries AS SELECT * FROM main.webhook_deliveries`.execute(
    db,
  );
  for (const { table, pointers } of NEVER_REUSED) {
    const source = table === 'webhook_deliveries' ? 'temp.kept_webhook_deliveries' : null;
    await rebuild(db, table, source, analyzed);
    const floor = await highest(db, [`SELECT max(id) FROM ${table}`, ...pointers]);
    await sql`DELETE FROM sqlite_sequence WHERE name = ${table}`.execute(db);
    await sql`INSERT INTO sqlite_sequence (name, seq) VALUES (${table}, ${floor})`.execute(db);
  }
  await sql`DROP TABLE temp.kept_webhook_deliveries`.execute(db);
  const broken = await sql`PRAGMA foreign_key_check`.execute(db);
  if (broken.rows.length > 0) {
    throw new Error(`rebuilding tables broke foreign keys: ${JSON.stringify(broken.rows)}`);
  }
}

/**
 * Rebuilds `table` with `AUTOINCREMENT`: the same definition, the same rows (from `source` when
 * they were kept aside), then its indexes, triggers and planner statistics again.
 */
async function rebuild(
  db: Kysely<unknown>,
  table: string,
  source: string | null,
  analyzed: boolean,
): Promise<void> {
  const { rows: schema } = await sql<{ type: string; name: string; sql: string | null }>`
    SELECT type, name, sql FROM sqlite_master WHERE tbl_name = ${table} ORDER BY rowid`.execute(db);
  const definition = schema.find((r) => r.type === 'table' && r.name === table)?.sql;
  if (!definition || !ID_COLUMN.test(definition)) {
    throw new Error(`${table}: no "id" integer primary key to make AUTOINCREMENT`);
  }
  const kept = `kept_${table}`;
  let from = source;
  if (!from) {
    await runSql(db, `CREATE TEMP TABLE ${kept} AS SELECT * FROM main.${table}`);
    from = `temp.${kept}`;
  }
  if (analyzed) {
    await sql`CREATE TEMP TABLE kept_stat1 AS SELECT * FROM main.sqlite_stat1 WHERE tbl = ${table}`.execute(
      db,
    );
  }
  await runSql(db, `DROP TABLE main.${table}`);
  await runSql(db, definition.replace(ID_COLUMN, '"id" integer primary key autoincrement'));
  await runSql(db, `INSERT INTO main.${table} SELECT * FROM ${from} ORDER BY id`);
  if (!source) await runSql(db, `DROP TABLE ${from}`);
  // Indexes and triggers in the order they were made (sqlite_autoindex_* come with the table).
  for (const entry of schema) {
    if ((entry.type === 'index' || entry.type === 'trigger') && entry.sql) {
      await runSql(db, entry.sql);
    }
  }
  if (analyzed) {
    await sql`INSERT INTO main.sqlite_stat1 SELECT * FROM temp.kept_stat1`.execute(db);
    await sql`DROP TABLE temp.kept_stat1`.execute(db);
  }
}

async function hasTable(db: Kysely<unknown>, name: string): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${name}`.execute(db);
  return Number(rows[0]?.n) > 0;
}

/** The largest of what `queries` (each one `max(…)`) answer, 0 when all are empty. */
async function highest(db: Kysely<unknown>, queries: string[]): Promise<number> {
  const { rows } = await sql
    .raw<{ n: number | null }>(
      `SELECT max(${queries.map((q) => `coalesce((${q}), 0)`).join(', ')}, 0) AS n`,
    )
    .execute(db);
  return Number(rows[0]?.n ?? 0);
}
