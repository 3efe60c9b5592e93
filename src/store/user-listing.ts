/** User listings: by username, by search, blocked users only when asked for. */
import { type Kysely, sql } from 'kysely';
import { contains, countRows } from './listing-sql.js';
import type { UserQuery } from './navigation.js';
import type { Database, UserRow } from './schema.js';

export class UserListing {
  constructor(private readonly db: Kysely<Database>) {}

  private filteredUsers(q: UserQuery) {
    let query = this.db.selectFrom('users as u');
    if (!q.includeBlocked) query = query.where('u.state', '=', 'active');
    if (q.username !== undefined) {
      query = query.where(sql`lower(u.username)`, '=', q.username.toLowerCase());
    }
    if (q.search) {
      const text = q.search;
      query = query.where((eb) => eb.or([contains('u.username', text), contains('u.name', text)]));
    }
    return query;
  }

  /** Users by id, newest first (GitLab's default order for the users list). */
  list(q: UserQuery): Promise<UserRow[]> {
    return this.filteredUsers(q)
      .selectAll('u')
      .orderBy('u.id', 'desc')
      .limit(q.limit)
      .offset(q.offset)
      .execute();
  }

  count(q: UserQuery): Promise<number> {
    return countRows(this.filteredUsers(q));
  }

  /** Users by username, case-insensitively (the owners of personal namespaces). */
  byUsernames(usernames: readonly string[]): Promise<UserRow[]> {
    if (usernames.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('users as u')
      .selectAll('u')
      .where(
        sql`lower(u.username)`,
        'in',
        usernames.map((u) => u.toLowerCase()),
      )
      .execute();
  }

  /** Every active user's namespace (an administrator may create projects in any of them). */
  all(search: string | undefined): Promise<UserRow[]> {
    let query = this.db.selectFrom('users as u').selectAll('u');
    if (search) query = query.where(contains('u.username', search));
    return query.orderBy('u.id').execute();
  }
}
