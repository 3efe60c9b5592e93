/** Bulk loads (import, seed) with the per-row and per-batch tally work set aside. */
import { type Kysely, sql } from 'kysely';
import { lockEvents } from './events-lock.js';
import type { Database } from './schema.js';
import { SQLITE_TALLY_TRIGGER_PREFIX, retallyStatements } from './tallies.js';

/**
 * PostgreSQL's statement triggers that add inserted events to the tallies (migrations 017, 018).
 * A bulk load's batches all upsert the same few thousand tally rows, each batch leaving a dead
 * version of every one inside the one long transaction (nothing can prune them before it ends),
 * so every later upsert wades through more of them: a load slowed from about 12,000 events/s to
 * about 1,000 past its first million. Set aside, the load tallies once at the end instead.
 */
const PG_TALLY_INSERT_TRIGGERS = ['events_tally_insert', 'events_confidential_insert'];

/**
 * Runs a bulk load in its transaction without the tally triggers (transactional DDL: no other
 * connection sees them gone), then counts the tallies of the projects it wrote events in
 * (`written`, asked once the load is done) afresh from their events. SQLite also sets
 * its per-row listing-version triggers aside and moves the version once; PostgreSQL's listing
 * version triggers check once per statement, and stay.
 */
export async function bulkLoad<T>(
  trx: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  run: () => Promise<T>,
  written: () => Iterable<number>,
): Promise<T> {
  return dialect === 'sqlite'
    ? bulkLoadSqlite(trx, run, written)
    : bulkLoadPostgres(trx, run, written);
}

async function bulkLoadSqlite<T>(
  trx: Kysely<Database>,
  run: () => Promise<T>,
  written: () => Iterable<number>,
): Promise<T> {
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
    await retally(trx, written());
  }
  return result;
}

async function bulkLoadPostgres<T>(
  trx: Kysely<Database>,
  run: () => Promise<T>,
  written: () => Iterable<number>,
): Promise<T> {
  const { rows } = await sql<{ name: string }>`
    SELECT tgname AS name FROM pg_trigger
    WHERE tgrelid = to_regclass('events') AND NOT tgisinternal AND tgenabled <> 'D'
      AND tgname IN (${sql.join(PG_TALLY_INSERT_TRIGGERS)})`.execute(trx);
  if (rows.length === 0) return run();
  // Disabling takes the table's SHARE ROW EXCLUSIVE lock (appends, updates and deletes of events
  // wait for the commit; reads go on), then the events lock, in the order an append takes them
  // (its insert's table lock, then its statement trigger's events lock), so the two cannot
  // deadlock. The events lock keeps confidentiality flips (migration 018) out until the recount.
  const names = rows.map((r) => r.name).sort();
  for (const name of names) {
    await sql.raw(`ALTER TABLE events DISABLE TRIGGER ${name}`).execute(trx);
  }
  await lockEvents(trx);
  const result = await run();
  for (const name of names) await sql.raw(`ALTER TABLE events ENABLE TRIGGER ${name}`).execute(trx);
  await retally(trx, written());
  return result;
}

/** Projects recounted per round of statements: well under either database's parameter limit. */
const RETALLY_PROJECTS = 1_000;

/** Counts the tallies of `projects` again from their events and issues as they stand. */
async function retally(trx: Kysely<Database>, projects: Iterable<number>): Promise<void> {
  const ids = [...new Set(projects)].sort((a, b) => a - b);
  for (let start = 0; start < ids.length; start += RETALLY_PROJECTS) {
    const round = ids.slice(start, start + RETALLY_PROJECTS);
    for (const statement of retallyStatements(round)) await statement.execute(trx);
  }
}
