/** Feed tokens by user: the generation a token is derived from and its digest for lookups. */
import type { Kysely, Selectable } from 'kysely';
import { rowBy, updateBy } from './rows.js';
import type { Database, FeedTokensTable } from './schema.js';

export interface FeedTokenRecord {
  userId: number;
  generation: number;
}

export class FeedTokenStore {
  constructor(private readonly db: Kysely<Database>) {}

  byUser(userId: number): Promise<FeedTokenRecord | undefined> {
    return rowBy(this.db, 'feed_tokens', { user_id: userId }).then(recordOf);
  }

  byDigest(tokenDigest: string): Promise<FeedTokenRecord | undefined> {
    return rowBy(this.db, 'feed_tokens', { token_digest: tokenDigest }).then(recordOf);
  }

  /**
   * Creates the user's first token (generation 1) unless one exists; concurrent calls agree. Any
   * conflict means another call made it: theirs carries the same digest, so naming `user_id` alone
   * would let PostgreSQL report the digest's unique violation instead.
   */
  async ensure(userId: number, tokenDigest: string, now: number): Promise<void> {
    await this.db
      .insertInto('feed_tokens')
      .values({ user_id: userId, generation: 1, token_digest: tokenDigest, created_at: now })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  /** Moves the user to `generation` (the old token stops matching at once). */
  async replace(userId: number, generation: number, tokenDigest: string, now: number) {
    const patch = { generation, token_digest: tokenDigest, created_at: now };
    await updateBy(this.db, 'feed_tokens', { user_id: userId }, patch);
  }
}

function recordOf(row: Selectable<FeedTokensTable> | undefined): FeedTokenRecord | undefined {
  return row && { userId: row.user_id, generation: row.generation };
}
