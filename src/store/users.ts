import { type Kysely, sql } from 'kysely';
import type { RowVersion } from './row-cache.js';
import { RowsById, rowByFolded, updateBy } from './rows.js';
import type { Database, UserRow } from './schema.js';
import { matchesNoRow } from './text.js';

export class UserStore extends RowsById<'users'> {
  constructor(
    private readonly db: Kysely<Database>,
    rowVersion: RowVersion = () => null,
    /** Where its reads by key run: `Connection.prepared`. */
    reads: Kysely<Database> = db,
  ) {
    super(reads, 'users', rowVersion);
  }

  /** Case-insensitive, as GitLab looks usernames up. */
  byUsername(username: string): Promise<UserRow | undefined> {
    return rowByFolded(this.reads, 'users', 'username', username);
  }

  /** A username or an e-mail address (sign-in and the password grant accept either). */
  byLogin(login: string): Promise<UserRow | undefined> {
    if (matchesNoRow(login)) return Promise.resolve(undefined);
    const lower = login.toLowerCase();
    return this.reads
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
        | 'password_hash'
        | 'two_factor_enabled'
        | 'otp_secret'
        | 'otp_recovery_digests'
        | 'state'
        | 'timezone'
        | 'include_private_contributions'
      >
    >,
  ): Promise<void> {
    await updateBy(this.db, 'users', { id }, changes);
  }
}
