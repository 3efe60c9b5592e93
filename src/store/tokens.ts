import type { Kysely } from 'kysely';
import { RowCache, type RowVersion } from './row-cache.js';
import { rowBy, rowsBy, updateBy } from './rows.js';
import type { Database, PersonalAccessTokenRow } from './schema.js';

export class TokenStore {
  private readonly cache: RowCache<string, PersonalAccessTokenRow | undefined>;

  constructor(
    private readonly db: Kysely<Database>,
    rowVersion: RowVersion = () => null,
    /** Where its reads by key run: `Connection.prepared`. */
    private readonly reads: Kysely<Database> = db,
  ) {
    this.cache = new RowCache(rowVersion);
  }

  /** Cached only while nothing at all changes in the database (see RowCache). */
  byDigest(tokenDigest: string): Promise<PersonalAccessTokenRow | undefined> {
    return this.cache.get(tokenDigest, () =>
      rowBy(this.reads, 'personal_access_tokens', { token_digest: tokenDigest }),
    );
  }

  forUser(userId: number): Promise<PersonalAccessTokenRow[]> {
    return rowsBy(this.db, 'personal_access_tokens', { user_id: userId }, 'desc');
  }

  async create(token: {
    userId: number;
    name: string;
    tokenDigest: string;
    scopes: readonly string[];
    expiresAt: string | null;
    createdAt: number;
  }): Promise<PersonalAccessTokenRow> {
    return this.db
      .insertInto('personal_access_tokens')
      .values({
        user_id: token.userId,
        name: token.name,
        token_digest: token.tokenDigest,
        scopes: token.scopes.join(' '),
        expires_at: token.expiresAt,
        revoked: 0,
        created_at: token.createdAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async revoke(id: number, userId: number): Promise<boolean> {
    const key = { id, user_id: userId };
    return (await updateBy(this.db, 'personal_access_tokens', key, { revoked: 1 })) > 0;
  }

  /** Revokes every still-active token of this user with this name; returns how many. */
  revokeNamed(userId: number, name: string): Promise<number> {
    const key = { user_id: userId, name, revoked: 0 };
    return updateBy(this.db, 'personal_access_tokens', key, { revoked: 1 });
  }

  async touch(id: number, at: number): Promise<void> {
    await updateBy(this.db, 'personal_access_tokens', { id }, { last_used_at: at });
  }
}
