/**
 * Reads the listing version (migration 009): a counter that triggers move on every committed write
 * to what event listings show. One primary-key read; on SQLite not even that while the connection's
 * data version (which moves on any commit, ours or another process's) is unchanged.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export class ListingVersionStore {
  private memo: { dataVersion: number; value: number } | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dataVersion: () => number | null,
  ) {}

  async read(): Promise<number> {
    const dataVersion = this.dataVersion();
    if (dataVersion !== null && this.memo?.dataVersion === dataVersion) return this.memo.value;
    const row = await this.db
      .selectFrom('listing_version')
      .select('value')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    const value = Number(row.value);
    if (dataVersion !== null) this.memo = { dataVersion, value };
    return value;
  }
}
