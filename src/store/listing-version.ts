/**
 * Reads the listing version (migration 009): a counter that triggers move on every committed write
 * to what event listings show. On PostgreSQL it comes with the turn's shared reading (one statement
 * per event-loop turn, store/database.ts); on SQLite it is a primary-key read, and not even that
 * while the connection's data version (which moves on any commit, ours or another process's) is
 * unchanged.
 */
import { type Kysely, sql } from 'kysely';
import type { TurnReading } from './database.js';
import type { Database } from './schema.js';

export class ListingVersionStore {
  private memo: { dataVersion: number; value: number } | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dataVersion: () => number | null,
    /** PostgreSQL: the turn's shared reading (database.ts), which carries the version. */
    private readonly turnReading?: () => Promise<TurnReading>,
  ) {}

  async read(): Promise<number> {
    if (this.turnReading) return (await this.turnReading()).listingVersion;
    const dataVersion = this.dataVersion();
    if (dataVersion === null) return this.query();
    if (this.memo?.dataVersion === dataVersion) return this.memo.value;
    const value = await this.query();
    this.memo = { dataVersion, value };
    return value;
  }

  private async query(): Promise<number> {
    const row = await this.db
      .selectFrom('listing_version')
      .select('value')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    return Number(row.value);
  }
}

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
