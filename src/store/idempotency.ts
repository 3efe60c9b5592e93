/** The first answers to writes sent with an `Idempotency-Key`, kept for retries. */
import type { Kysely } from 'kysely';
import type { Database, IdempotencyKeysTable } from './schema.js';
import type { Insertable, Selectable } from 'kysely';
import { isUniqueViolation } from './constraint-errors.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

export class IdempotencyStore {
  constructor(private readonly db: Kysely<Database>) {}

  find(userId: number, key: string, since: number): Promise<IdempotencyRow | undefined> {
    return this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .where('idempotency_key', '=', key)
      .where('created_at', '>=', since)
      .executeTakeFirst();
  }

  /**
   * Stores an answer, replacing an expired one under the same key. Two first requests racing
   * with one key: the second insert waits for the first transaction and then fails on the unique
   * index, which rolls the second write back (the caller replays the first answer).
   */
  async save(row: Insertable<IdempotencyKeysTable>, expiredBefore: number): Promise<boolean> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('user_id', '=', row.user_id)
      .where('idempotency_key', '=', row.idempotency_key)
      .where('created_at', '<', expiredBefore)
      .execute();
    try {
      await this.db.insertInto('idempotency_keys').values(row).execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Drops answers older than the retention window; returns how many. */
  async prune(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
