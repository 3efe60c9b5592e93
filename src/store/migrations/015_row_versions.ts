/**
 * Change counters for the tables whose rows the store keeps in memory (store/row-cache): users,
 * projects, memberships, personal access tokens and OAuth access tokens. Those caches used to
 * start over on every commit anywhere (SQLite) or not exist at all (PostgreSQL), so with events
 * arriving every few milliseconds the token, its user and the listed projects were read again on
 * almost every request. Triggers move the counters inside the writing transaction, so no write
 * path (the API, the CLI, another process, a hand-typed statement) can change a row without them.
 *
 * - SQLite: one counter per table, moved by a row trigger per table and operation (writers are
 *   serialized anyway). Read again only when `PRAGMA data_version` moved.
 * - PostgreSQL: one counter for all five tables. A row trigger marks the transaction once (a
 *   transaction-local setting) and queues one row in `row_version_bumps`, whose deferred
 *   constraint trigger moves the counter at commit, after every other lock of the transaction
 *   is taken, so concurrent writers queue there briefly but cannot deadlock on it (the same
 *   design as migration 009's listing version). Read once per event-loop turn.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, runSql } from './helpers.js';

export const COUNTED_TABLES = [
  'users',
  'projects',
  'project_members',
  'personal_access_tokens',
  'oauth_access_tokens',
] as const;

/** PostgreSQL's single counter, named in `row_versions`. */
export const ALL_TABLES = 'all';

/**
 * Counts `table`'s row changes. SQLite: its own counter, moved by a trigger per operation.
 * PostgreSQL: a row and a truncate trigger that note the transaction (the one counter moves at
 * commit). Migration 028 counts its tables with it too, so what it runs must never change.
 */
export async function countChanges(
  db: Kysely<unknown>,
  ctx: MigrationContext,
  table: string,
): Promise<void> {
  if (ctx.dialect === 'sqlite') {
    await sql`INSERT INTO row_versions (name, value) VALUES (${table}, 1)`.execute(db);
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      await runSql(
        db,
        `CREATE TRIGGER ${table}_row_version_${op.toLowerCase()} AFTER ${op} ON ${table}
             BEGIN
               UPDATE row_versions SET value = value + 1 WHERE name = '${table}';
             END`,
      );
    }
    return;
  }
  // Row triggers: a statement that changes no row (the hourly activity-time update that
  // usually matches nothing) moves nothing.
  await runSql(
    db,
    `CREATE TRIGGER ${table}_row_version AFTER INSERT OR UPDATE OR DELETE ON ${table}
         FOR EACH ROW EXECUTE FUNCTION row_version_note()`,
  );
  await runSql(
    db,
    `CREATE TRIGGER ${table}_row_version_truncate AFTER TRUNCATE ON ${table}
         FOR EACH STATEMENT EXECUTE FUNCTION row_version_note()`,
  );
}

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect === 'sqlite') {
    await sql`CREATE TABLE row_versions (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`.execute(
      db,
    );
    for (const table of COUNTED_TABLES) await countChanges(db, ctx, table);
    return;
  }
  await sql`CREATE TABLE row_versions (name text PRIMARY KEY, value bigint NOT NULL)`.execute(db);
  await sql`INSERT INTO row_versions (name, value) VALUES (${ALL_TABLES}, 1)`.execute(db);
  await sql`CREATE TABLE row_version_bumps (txid bigint PRIMARY KEY)`.execute(db);
  await runSql(
    db,
    `CREATE FUNCTION row_version_note() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF current_setting('pulsegate.rows_changed', true) IS DISTINCT FROM '1' THEN
           PERFORM set_config('pulsegate.rows_changed', '1', true);
           INSERT INTO row_version_bumps (txid) VALUES (txid_current());
         END IF;
         RETURN NULL;
       END $$`,
  );
  await runSql(
    db,
    `CREATE FUNCTION row_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         UPDATE row_versions SET value = value + 1 WHERE name = '${ALL_TABLES}';
         DELETE FROM row_version_bumps WHERE txid = NEW.txid;
         RETURN NULL;
       END $$`,
  );
  await runSql(
    db,
    `CREATE CONSTRAINT TRIGGER row_version_bump AFTER INSERT ON row_version_bumps
       DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION row_version_bump()`,
  );
  for (const table of COUNTED_TABLES) await countChanges(db, ctx, table);
}
