/** Users as clients look for them: by id, by username, by search. */
import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import { isRowId } from '../../domain/ids.js';
import { mayListUsers } from '../../domain/navigation.js';
import { type Viewer, canReadUserProfile } from '../../domain/visibility.js';
import type { UserRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { type UserView, userView } from '../views.js';
import type { FollowCounts, Listed, Slice, UserLookup } from './lists.js';

export class UserDirectory {
  constructor(private readonly store: Store) {}

  /** `GET /users/:id`: any user by id; 404 for none. */
  async get(id: number, viewer: Viewer | null): Promise<UserLookup> {
    const row = isRowId(id) ? await this.store.users.byId(id) : undefined;
    if (!row) throw new NotFoundError('User');
    const user = userView(row);
    const profileReadable = canReadUserProfile(user, viewer);
    return {
      user,
      profileReadable,
      follows: profileReadable ? await this.follows(user, viewer) : null,
    };
  }

  /** The user's follow counts, and whether the viewer follows them. */
  async follows(user: UserView, viewer: Viewer | null): Promise<FollowCounts> {
    const [counts, isFollowed] = await Promise.all([
      this.store.follows.counts(user.id),
      viewer ? this.store.follows.isFollowing(viewer.userId, user.id) : null,
    ]);
    return { ...counts, isFollowed };
  }

  /** `GET /users`: blocked users only for administrators; anonymous callers name one username. */
  async list(
    q: { username?: string | undefined; search?: string | undefined },
    viewer: Viewer | null,
    slice: Slice,
  ): Promise<Listed<UserView>> {
    if (!mayListUsers(viewer !== null, q.username)) {
      throw new ForbiddenError('Not authorized to access /api/v4/users');
    }
    const query = { ...q, includeBlocked: viewer?.admin ?? false, ...slice };
    const [rows, total] = await Promise.all([
      this.store.navigation.users.list(query),
      this.store.navigation.users.count(query),
    ]);
    return { items: rows.map(userView), total };
  }

  /** A user by id or username (case-insensitive); 404 for none. */
  async byIdOrUsername(idOrUsername: string): Promise<UserView> {
    let row: UserRow | undefined;
    if (/^\d+$/.test(idOrUsername)) {
      const id = Number(idOrUsername);
      row = isRowId(id) ? await this.store.users.byId(id) : undefined;
    } else {
      row = await this.store.users.byUsername(idOrUsername);
    }
    if (!row) throw new NotFoundError('User');
    return userView(row);
  }
}
