/**
 * The listing version (migrations 009 and 016) is read with the settled head (store/events.ts
 * `head`); what is left here is how bulk loads keep it cheap.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/**
 * Runs a bulk load (import, seed) inside its transaction with SQLite's per-row listing-version
 * triggers set aside, and moves the version once at the end: a million inserted rows would
 * otherwise each update the counter (about a third more time for a seed). SQLite's DDL is
 * transactional, so the triggers are back at commit, or never gone after a rollback, and no other
 * connection ever sees the database without them. PostgreSQL's triggers are per statement already.
 */
export async function bulkLoad<T>(
  trx: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  run: () => Promise<T>,
): Promise<T> {
  if (dialect !== 'sqlite') return run();
  const { rows } = await sql<{ name: string; sql: string }>`
    SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%listing_version%'`.execute(
    trx,
  );
  for (const trigger of rows) await sql.raw(`DROP TRIGGER ${trigger.name}`).execute(trx);
  const result = await run();
  for (const trigger of rows) await sql.raw(trigger.sql).execute(trx);
  await sql`UPDATE listing_version SET value = value + 1,
    changed_at = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE id = 1`.execute(trx);
  return result;
}
