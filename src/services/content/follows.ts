/**
 * Follows (lib/api/users.rb `follow`, `unfollow`, `followers`, `following`). No event is written
 * (GitLab writes none); the triggers of migration 024 move the follower's social version and the
 * listing version.
 */
import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import { FollowLimitError, MAX_FOLLOWED_USERS, mayFollow } from '../../domain/follows.js';
import { isRowId } from '../../domain/ids.js';
import { canReadUserProfile } from '../../domain/visibility.js';
import { type UserView, userView } from '../views.js';
import { Ops } from './context.js';

/** What a follow or unfollow did: the followed user, or nothing (GitLab's 304). */
export type FollowChange = { changed: true; user: UserView } | { changed: false };

export class FollowOps extends Ops {
  /**
   * `POST /users/:id/follow`. As GitLab's `User#follow`: following oneself changes nothing (304),
   * the 301st follow is refused (checked before the follow exists, as GitLab's validation), and a
   * follow that exists already changes nothing.
   */
  async follow(userId: number): Promise<FollowChange> {
    const me = this.actor.user;
    const target = await this.user(userId);
    if (!mayFollow(me.id, target.id)) return { changed: false };
    await this.store.follows.lockFollower(me.id);
    if ((await this.store.follows.followingCount(me.id)) >= MAX_FOLLOWED_USERS) {
      throw new FollowLimitError();
    }
    const added = await this.store.follows.add(me.id, target.id, this.now);
    return added ? { changed: true, user: target } : { changed: false };
  }

  /** `POST /users/:id/unfollow`: unchanged when the actor did not follow them. */
  async unfollow(userId: number): Promise<FollowChange> {
    const target = await this.user(userId);
    const removed = await this.store.follows.remove(this.actor.user.id, target.id);
    return removed ? { changed: true, user: target } : { changed: false };
  }

  /**
   * `GET /users/:id/followers` and `/following`, by user id. Signed-in callers only (GitLab: 403
   * "Not authorized!"); a profile the caller may not read (private, blocked) is 404 User.
   */
  async list(
    userId: number,
    direction: 'followers' | 'following',
    slice: { offset: number; limit: number },
  ): Promise<{ items: UserView[]; total: number }> {
    const viewer = this.context.actor?.viewer;
    if (!viewer) throw new ForbiddenError('Not authorized!');
    const target = await this.user(userId);
    if (!canReadUserProfile(target, viewer)) throw new NotFoundError('User');
    const [rows, counts] = await Promise.all([
      this.store.follows.list(target.id, direction, slice.offset, slice.limit),
      this.store.follows.counts(target.id),
    ]);
    return { items: rows.map(userView), total: counts[direction] };
  }

  private async user(id: number): Promise<UserView> {
    const row = isRowId(id) ? await this.store.users.byId(id) : undefined;
    if (!row) throw new NotFoundError('User');
    return userView(row);
  }
}
