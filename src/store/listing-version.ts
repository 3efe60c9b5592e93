/**
 * The listing version (migrations 009 and 016) is read with the settled head (store/events.ts
 * `head`); what is left here is how bulk loads keep it, and the event tallies (migrations 017 and
 * 018), cheap.
 */
import { type Kysely, sql } from 'kysely';
import { SQLITE_TALLY_TRIGGER_PREFIX, tallyStatements } from './migrations/017_event_tallies.js';
import { CONFIDENTIAL_RETALLY, TALLY_TABLES } from './migrations/018_confidential_tallies.js';
import type { Database } from './schema.js';

/**
 * Runs a bulk load (import, seed) inside its transaction with SQLite's per-row listing-version and
 * tally triggers set aside; at the end it moves the version once and tallies every event again: a
 * million inserted rows would otherwise each update the counter and two tally rows (about half as
 * much time again for a seed; one grouped pass over the events costs about a second). SQLite's DDL
 * is transactional, so the triggers are back at commit, or never gone after a rollback, and no
 * other connection ever sees the database without them. PostgreSQL's triggers are per statement
 * already.
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
    for (const statement of tallyStatements('events', '+')) await sql.raw(statement).execute(trx);
    // From the per-issue tallies just made and the issues as loaded (migration 018).
    await sql.raw(CONFIDENTIAL_RETALLY).execute(trx);
  }
  return result;
}
