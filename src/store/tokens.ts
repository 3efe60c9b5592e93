import type { Kysely } from 'kysely';
import { RowCache, type RowVersion } from './row-cache.js';
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
      this.reads
        .selectFrom('personal_access_tokens')
        .selectAll()
        .where('token_digest', '=', tokenDigest)
        .executeTakeFirst(),
    );
  }

  forUser(userId: number): Promise<PersonalAccessTokenRow[]> {
    return this.db
      .selectFrom('personal_access_tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .execute();
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
    const result = await this.db
      .updateTable('personal_access_tokens')
      .set({ revoked: 1 })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Revokes every still-active token of this user with this name; returns how many. */
  async revokeNamed(userId: number, name: string): Promise<number> {
    const result = await this.db
      .updateTable('personal_access_tokens')
      .set({ revoked: 1 })
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .where('revoked', '=', 0)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async touch(id: number, at: number): Promise<void> {
    await this.db
      .updateTable('personal_access_tokens')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .execute();
  }
}
