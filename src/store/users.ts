import { type Kysely, sql } from 'kysely';
import type { RowVersion } from './database.js';
import { RowCache } from './row-cache.js';
import { rowBy, rowsIn, updateBy } from './rows.js';
import type { Database, UserRow } from './schema.js';
import { matchesNoRow } from './text.js';

export class UserStore {
  private readonly cache: RowCache<number, UserRow | undefined>;

  constructor(
    private readonly db: Kysely<Database>,
    rowVersion: RowVersion = () => null,
  ) {
    this.cache = new RowCache(rowVersion);
  }

  byId(id: number): Promise<UserRow | undefined> {
    return this.cache.get(id, () => rowBy(this.db, 'users', { id }));
  }

  byIds(ids: readonly number[]): Promise<UserRow[]> {
    return this.cache.rows(
      ids,
      (missing) => rowsIn(this.db, 'users', 'id', missing),
      (row) => row.id,
    );
  }

  /** Case-insensitive, as GitLab looks usernames up. */
  byUsername(username: string): Promise<UserRow | undefined> {
    if (matchesNoRow(username)) return Promise.resolve(undefined);
    return this.db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(username)`, '=', username.toLowerCase())
      .executeTakeFirst();
  }

  /** A username or an e-mail address (sign-in and the password grant accept either). */
  byLogin(login: string): Promise<UserRow | undefined> {
    if (matchesNoRow(login)) return Promise.resolve(undefined);
    const lower = login.toLowerCase();
    return this.db
      .selectFrom('users')
      .selectAll()
      .where((eb) =>
        eb.or([eb(sql`lower(username)`, '=', lower), eb(sql`lower(email)`, '=', lower)]),
      )
      .executeTakeFirst();
  }

  async create(user: {
    username: string;
    name: string;
    email: string;
    passwordHash: string | null;
    admin?: boolean;
    createdAt: number;
  }): Promise<UserRow> {
    const row = await this.db
      .insertInto('users')
      .values({
        username: user.username,
        name: user.name,
        email: user.email,
        state: 'active',
        password_hash: user.passwordHash,
        admin: user.admin ? 1 : 0,
        two_factor_enabled: 0,
        private_profile: 0,
        created_at: user.createdAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return row;
  }

  async update(
    id: number,
    changes: Partial<
      Pick<
        UserRow,
        'password_hash' | 'two_factor_enabled' | 'otp_secret' | 'otp_recovery_digests' | 'state'
      >
    >,
  ): Promise<void> {
    await updateBy(this.db, 'users', { id }, changes);
  }
}
