/**
 * Change counters for the tables whose rows the store keeps in memory on SQLite (store/row-cache):
 * users, projects, memberships, personal access tokens and OAuth access tokens. Those caches used
 * to start over on every commit anywhere, so with events arriving every few milliseconds the token,
 * its user and the listed projects were read again on almost every request. A trigger per table
 * and operation moves the table's counter inside the writing transaction, so no write path (the
 * API, the CLI, another process, a hand-typed statement) can change a row without it; a cache
 * starts over only when a table it holds rows of has changed.
 *
 * SQLite only: PostgreSQL has no cheap commit signal (`PRAGMA data_version`) to tell a reader when
 * to look at the counters, and its processes keep no row caches.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './helpers.js';

export const COUNTED_TABLES = [
  'users',
  'projects',
  'project_members',
  'personal_access_tokens',
  'oauth_access_tokens',
] as const;

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect !== 'sqlite') return;
  await sql`CREATE TABLE row_versions (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`.execute(db);
  for (const table of COUNTED_TABLES) {
    await sql`INSERT INTO row_versions (name, value) VALUES (${table}, 1)`.execute(db);
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_row_version_${op.toLowerCase()} AFTER ${op} ON ${table}
           BEGIN
             UPDATE row_versions SET value = value + 1 WHERE name = '${table}';
           END`,
        )
        .execute(db);
    }
  }
}
