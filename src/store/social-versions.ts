/**
 * Per-user social versions (migration 024): a counter that triggers move whenever a star of the
 * user's, or a follow the user makes, is added or removed, by any writer. A cache of the user's
 * starred or followed listing keeps the version it was built at and starts over when it differs.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export class SocialVersionStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** The user's version now: 0 until their first star or follow. */
  async of(userId: number): Promise<number> {
    const row = await this.db
      .selectFrom('social_versions')
      .select('version')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(row?.version ?? 0);
  }
}
