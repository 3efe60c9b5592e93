/**
 * Follows (migration 024): who follows whom. As with stars, adding and removing say whether they
 * changed anything.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from './database.js';
import { countRows } from './listing-sql.js';
import { deleteBy, hasRow, insertOnce } from './rows.js';
import type { Database, UserRow } from './schema.js';

export class FollowStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Holds the follower's user row until the write commits (PostgreSQL), so that two follows of
   * theirs at once count one after the other against the limit; SQLite's writers are serialized.
   */
  async lockFollower(followerId: number): Promise<void> {
    if (this.dialect !== 'postgres') return;
    await this.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', followerId)
      .forUpdate()
      .execute();
  }

  /** The follower now follows the followee; false when they did already. */
  add(followerId: number, followeeId: number, now: number): Promise<boolean> {
    const row = { follower_id: followerId, followee_id: followeeId, created_at: now };
    return insertOnce(this.db, 'user_follows', row, ['follower_id', 'followee_id']);
  }

  /** Ends the follow; false when there was none. */
  async remove(followerId: number, followeeId: number): Promise<boolean> {
    const key = { follower_id: followerId, followee_id: followeeId };
    return (await deleteBy(this.db, 'user_follows', key)) > 0;
  }

  isFollowing(followerId: number, followeeId: number): Promise<boolean> {
    return hasRow(this.db, 'user_follows', { follower_id: followerId, followee_id: followeeId });
  }

  /** How many users follow `userId`, and how many it follows. */
  async counts(userId: number): Promise<{ followers: number; following: number }> {
    const [followers, following] = await Promise.all([
      countRows(this.db.selectFrom('user_follows').where('followee_id', '=', userId)),
      this.followingCount(userId),
    ]);
    return { followers, following };
  }

  /** How many users `userId` follows (the follow limit counts these). */
  followingCount(userId: number): Promise<number> {
    return countRows(this.db.selectFrom('user_follows').where('follower_id', '=', userId));
  }

  /** One page of the users following `userId` (`followers`) or followed by it, by user id. */
  list(
    userId: number,
    direction: 'followers' | 'following',
    offset: number,
    limit: number,
  ): Promise<UserRow[]> {
    const [mine, theirs] =
      direction === 'followers'
        ? (['f.followee_id', 'f.follower_id'] as const)
        : (['f.follower_id', 'f.followee_id'] as const);
    return this.db
      .selectFrom('user_follows as f')
      .innerJoin('users as u', 'u.id', theirs)
      .where(mine, '=', userId)
      .selectAll('u')
      .orderBy('u.id')
      .limit(limit)
      .offset(offset)
      .execute();
  }
}
