/**
 * Authorization grants (codes) and OAuth access/refresh tokens. Everything is keyed by SHA-256
 * digests on unique indexes; the state changes that must happen once (consuming a code, rotating a
 * refresh token) are conditional UPDATEs whose affected-row count decides the winner.
 */
import type { Kysely, Selectable, Transaction, UpdateResult } from 'kysely';
import { rowBy } from './rows.js';
import type { Database, OAuthGrantRow, OAuthTokenRow, UserRow } from './schema.js';

export interface NewGrant {
  codeDigest: string;
  applicationId: number;
  userId: number;
  redirectUri: string;
  scopes: readonly string[];
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  createdAt: number;
  expiresIn: number;
  nonce?: string | null;
  authTime?: number | null;
}

export interface NewToken {
  tokenDigest: string;
  refreshDigest: string | null;
  applicationId: number | null;
  userId: number;
  scopes: readonly string[];
  createdAt: number;
  expiresIn: number;
  grantId: number | null;
  familyId: string;
  authTime?: number | null;
}

/** A token row with its owner, read in one indexed query on the API's hot path. */
export interface TokenWithUser {
  token: OAuthTokenRow;
  user: UserRow;
}

export class OAuthStore {
  constructor(private readonly db: Kysely<Database>) {}

  createGrant(grant: NewGrant): Promise<OAuthGrantRow> {
    return this.db
      .insertInto('oauth_access_grants')
      .values({
        code_digest: grant.codeDigest,
        application_id: grant.applicationId,
        user_id: grant.userId,
        redirect_uri: grant.redirectUri,
        scopes: grant.scopes.join(' '),
        code_challenge: grant.codeChallenge,
        code_challenge_method: grant.codeChallengeMethod,
        created_at: grant.createdAt,
        expires_in: grant.expiresIn,
        nonce: grant.nonce ?? null,
        auth_time: grant.authTime ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  grantByDigest(codeDigest: string): Promise<OAuthGrantRow | undefined> {
    return rowBy(this.db, 'oauth_access_grants', { code_digest: codeDigest });
  }

  grantById(id: number): Promise<OAuthGrantRow | undefined> {
    return rowBy(this.db, 'oauth_access_grants', { id });
  }

  /**
   * Consumes the code and issues its token in one transaction. Only the exchange whose
   * conditional UPDATE changes a row inserts a token; every other one gets null.
   */
  async consumeGrantAndIssue(
    grantId: number,
    now: number,
    token: NewToken,
  ): Promise<OAuthTokenRow | null> {
    return issueOnce(
      this.db,
      (trx) =>
        trx
          .updateTable('oauth_access_grants')
          .set({ consumed_at: now })
          .where('id', '=', grantId)
          .where('consumed_at', 'is', null)
          .where('revoked_at', 'is', null)
          .executeTakeFirst(),
      token,
    );
  }

  /** A replayed code: the grant and every token descending from it die. */
  async revokeGrantFamily(grantId: number, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await revoke(trx, 'oauth_access_grants', 'id', grantId, now);
      await revoke(trx, 'oauth_access_tokens', 'grant_id', grantId, now);
    });
  }

  createToken(token: NewToken): Promise<OAuthTokenRow> {
    return insertToken(this.db, token);
  }

  /** Two primary-key/unique-index lookups: cheaper than one join with a long aliased select. */
  async tokenWithUser(tokenDigest: string): Promise<TokenWithUser | undefined> {
    const token = await this.tokenByDigest(tokenDigest);
    if (!token) return undefined;
    const user = await rowBy(this.db, 'users', { id: token.user_id });
    return user && { token, user };
  }

  tokenByDigest(tokenDigest: string): Promise<OAuthTokenRow | undefined> {
    return rowBy(this.db, 'oauth_access_tokens', { token_digest: tokenDigest });
  }

  tokenByRefreshDigest(refreshDigest: string): Promise<OAuthTokenRow | undefined> {
    return rowBy(this.db, 'oauth_access_tokens', { refresh_digest: refreshDigest });
  }

  /**
   * Rotation: revokes the presented token and inserts its successor atomically. Null when another
   * request rotated or revoked it first (the caller treats that as a replay).
   */
  async rotate(oldId: number, now: number, next: NewToken): Promise<OAuthTokenRow | null> {
    return issueOnce(this.db, (trx) => revoke(trx, 'oauth_access_tokens', 'id', oldId, now), next);
  }

  async revokeFamily(familyId: string, now: number): Promise<void> {
    await revoke(this.db, 'oauth_access_tokens', 'family_id', familyId, now);
  }

  async revokeToken(id: number, now: number): Promise<void> {
    await revoke(this.db, 'oauth_access_tokens', 'id', id, now);
  }

  /** Deleting an application or renewing nothing else: its grants and tokens stop working. */
  async revokeForApplication(applicationId: number, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await revoke(trx, 'oauth_access_tokens', 'application_id', applicationId, now);
      await revoke(trx, 'oauth_access_grants', 'application_id', applicationId, now);
    });
  }
}

export function insertToken(
  db: Kysely<Database>,
  token: NewToken,
): Promise<Selectable<OAuthTokenRow>> {
  return db
    .insertInto('oauth_access_tokens')
    .values({
      token_digest: token.tokenDigest,
      refresh_digest: token.refreshDigest,
      application_id: token.applicationId,
      user_id: token.userId,
      scopes: token.scopes.join(' '),
      created_at: token.createdAt,
      expires_in: token.expiresIn,
      grant_id: token.grantId,
      family_id: token.familyId,
      auth_time: token.authTime ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Spends a code or a refresh token once (`spend`: its conditional UPDATE) and stores its successor
 * token in the same transaction; null when another request spent it first.
 */
export function issueOnce(
  db: Kysely<Database>,
  spend: (trx: Transaction<Database>) => Promise<UpdateResult>,
  token: NewToken,
): Promise<OAuthTokenRow | null> {
  return db.transaction().execute(async (trx) => {
    const result = await spend(trx);
    if (Number(result.numUpdatedRows) !== 1) return null;
    return insertToken(trx, token);
  });
}

/** Revokes the grants or tokens whose `column` is `value` and that are not revoked yet. */
function revoke(
  db: Kysely<Database>,
  table: 'oauth_access_grants' | 'oauth_access_tokens',
  column: 'id' | 'grant_id' | 'application_id' | 'family_id',
  value: number | string,
  now: number,
): Promise<UpdateResult> {
  return db
    .updateTable(table)
    .set({ revoked_at: now })
    .where(db.dynamic.ref(column), '=', value)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}
