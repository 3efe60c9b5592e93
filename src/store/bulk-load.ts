/** Bulk loads (import, seed) with SQLite's per-row triggers set aside. */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';
import { RETALLY, SQLITE_TALLY_TRIGGER_PREFIX, TALLY_TABLES } from './tallies.js';

/**
 * Runs a bulk load in its transaction without SQLite's per-row listing-version and tally triggers
 * (transactional DDL: no other connection sees them gone), then moves the version once and
 * tallies afresh. PostgreSQL's triggers are per statement already.
 */
export async function bulkLoad<T>(
  trx: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  run: () => Promise<T>,
): Promise<T> {
  if (dialect !== 'sqlite') return run();
  const { rows } = await sql<{ name: string; sql: string }>`
    SELECT name, sql FROM sqlite_master WHERE type = 'trigger'
      AND (name LIKE '%listing_version%' OR name LIKE ${`${SQLITE_TALLY_TRIGGER_PREFIX}%`})`.execute(
    trx,
  );
  for (const trigger of rows) await sql.raw(`DROP TRIGGER ${trigger.name}`).execute(trx);
  const result = await run();
  for (const trigger of rows) await sql.raw(trigger.sql).execute(trx);
  await sql`UPDATE listing_version SET value = value + 1,
    changed_at = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE id = 1`.execute(trx);
  if (rows.some((t) => t.name.startsWith(SQLITE_TALLY_TRIGGER_PREFIX))) {
    for (const table of TALLY_TABLES) await sql`DELETE FROM ${sql.table(table)}`.execute(trx);
    for (const statement of RETALLY) await sql.raw(statement).execute(trx);
  }
  return result;
}
