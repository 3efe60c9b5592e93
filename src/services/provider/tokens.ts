/**
 * OAuth access and refresh tokens: minting (plaintext returned once, digests stored), the refresh
 * grant with immediate rotation and family-wide revocation on replay, revocation (RFC 7009),
 * introspection (RFC 7662), GitLab's token info, and the API resolver.
 */
import { viewerOf } from '../../domain/visibility.js';
import { InvalidTokenError, TOKEN_EXPIRED, TOKEN_REVOKED } from '../../domain/errors.js';
import {
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_TTL_S,
  OAuthError,
  REFRESH_TOKEN_PREFIX,
  resolveScopes,
  splitScopes,
} from '../../domain/oauth.js';
import type { Scope } from '../../domain/scopes.js';
import { digest, randomSecret } from '../../domain/secrets.js';
import type { RowVersion } from '../../store/database.js';
import type { NewToken, OAuthStore, TokenWithUser } from '../../store/oauth.js';
import type { OAuthApplicationRow, OAuthTokenRow } from '../../store/schema.js';
import type { Clock } from '../clock.js';
import type { Resolution, TokenResolver } from '../accounts/credentials.js';
import { userView } from '../views.js';

/** RFC 6749 §5.1 as GitLab sends it (`created_at` in integer seconds). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
  created_at: number;
}

export interface MintOptions {
  applicationId: number | null;
  userId: number;
  scopes: readonly Scope[];
  withRefresh: boolean;
  grantId: number | null;
  familyId?: string;
  /** When the user signed in (OpenID Connect `auth_time`), kept through refreshes. */
  authTime?: number | null;
}

export interface Minted {
  row: NewToken;
  accessToken: string;
  refreshToken: string | null;
}

export interface Introspection {
  active: boolean;
  scope?: string;
  client_id?: string | null;
  token_type?: 'Bearer';
  exp?: number;
  iat?: number;
  sub?: string;
}

export class OAuthTokenService {
  constructor(
    private readonly oauth: OAuthStore,
    private readonly clock: Clock,
  ) {}

  mint(options: MintOptions): Minted {
    const accessToken = `${ACCESS_TOKEN_PREFIX}${randomSecret(32)}`;
    const refreshToken = options.withRefresh ? `${REFRESH_TOKEN_PREFIX}${randomSecret(32)}` : null;
    return {
      accessToken,
      refreshToken,
      row: {
        tokenDigest: digest(accessToken),
        refreshDigest: refreshToken === null ? null : digest(refreshToken),
        applicationId: options.applicationId,
        userId: options.userId,
        scopes: options.scopes,
        createdAt: this.clock.now(),
        expiresIn: ACCESS_TOKEN_TTL_S,
        grantId: options.grantId,
        familyId: options.familyId ?? randomSecret(16),
        authTime: options.authTime ?? null,
      },
    };
  }

  response(minted: Minted): TokenResponse {
    return {
      access_token: minted.accessToken,
      token_type: 'Bearer',
      expires_in: minted.row.expiresIn,
      ...(minted.refreshToken === null ? {} : { refresh_token: minted.refreshToken }),
      scope: minted.row.scopes.join(' '),
      created_at: Math.floor(minted.row.createdAt / 1000),
    };
  }

  /** A token without refresh token (password grant), stored right away. */
  async issue(options: MintOptions): Promise<TokenResponse> {
    const minted = this.mint(options);
    await this.oauth.createToken(minted.row);
    return this.response(minted);
  }

  /**
   * A token pair, stored by `store`: the one step that also consumes what it was granted for (a
   * code, a device grant, the refresh token it replaces). When that step finds it consumed
   * already, `lost` runs and the answer is `invalid_grant`.
   */
  async issuePair(
    options: Omit<MintOptions, 'withRefresh'>,
    store: (row: NewToken) => Promise<unknown>,
    lost?: () => Promise<unknown>,
  ): Promise<TokenResponse> {
    const minted = this.mint({ ...options, withRefresh: true });
    if (!(await store(minted.row))) {
      await lost?.();
      throw new OAuthError('invalid_grant');
    }
    return this.response(minted);
  }

  /**
   * The refresh grant (GitLab's validation order). Rotation is immediate: the presented pair dies
   * as its successor is born. Presenting a dead refresh token is treated as theft (RFC 9700
   * §4.14.2): the whole family, including the newest pair, is revoked.
   */
  async refresh(
    client: OAuthApplicationRow,
    refreshToken: string,
    requestedScope: string | undefined,
    original: (grantId: number) => Promise<readonly Scope[] | null>,
  ): Promise<TokenResponse> {
    const row = await this.oauth.tokenByRefreshDigest(digest(refreshToken));
    if (!row || row.application_id !== client.id) throw new OAuthError('invalid_grant');
    const now = this.clock.now();
    if (row.revoked_at !== null) {
      await this.oauth.revokeFamily(row.family_id, now);
      throw new OAuthError('invalid_grant');
    }
    const current = splitScopes(row.scopes);
    const ceiling = (row.grant_id !== null ? await original(row.grant_id) : null) ?? current;
    const scopes = resolveScopes(requestedScope, ceiling, current);
    return this.issuePair(
      {
        applicationId: row.application_id,
        userId: row.user_id,
        scopes,
        grantId: row.grant_id,
        familyId: row.family_id,
        authTime: row.auth_time,
      },
      (next) => this.oauth.rotate(row.id, now, next),
      // Another request rotated it first: a concurrent replay, handled like any other.
      () => this.oauth.revokeFamily(row.family_id, now),
    );
  }

  /** Looks a presented token up as an access token or a refresh token, hint first. */
  async find(
    token: string,
    hint: string | undefined,
  ): Promise<{ row: OAuthTokenRow; kind: 'access' | 'refresh' } | undefined> {
    const d = digest(token);
    const byAccess = async () => {
      const row = await this.oauth.tokenByDigest(d);
      return row && { row, kind: 'access' as const };
    };
    const byRefresh = async () => {
      const row = await this.oauth.tokenByRefreshDigest(d);
      return row && { row, kind: 'refresh' as const };
    };
    if (hint === 'refresh_token') return (await byRefresh()) ?? (await byAccess());
    return (await byAccess()) ?? (await byRefresh());
  }

  /**
   * RFC 7009. Unknown tokens succeed silently. A token issued to an application may only be
   * revoked by that application; one issued without a client (password grant without
   * credentials) by whoever holds it.
   */
  async revoke(
    client: OAuthApplicationRow | null,
    token: string,
    hint: string | undefined,
  ): Promise<void> {
    const row = (await this.find(token, hint))?.row;
    if (!row) return;
    if (row.application_id !== null && row.application_id !== client?.id) {
      throw new OAuthError('unauthorized_client', 'You are not authorized to revoke this token', {
        code: 'OAUTH_FORBIDDEN',
      });
    }
    await this.oauth.revokeToken(row.id, this.clock.now());
  }

  async introspect(
    client: OAuthApplicationRow,
    token: string,
    hint: string | undefined,
  ): Promise<Introspection> {
    const found = await this.find(token, hint);
    const row = found?.row;
    if (!row || row.revoked_at !== null || row.application_id !== client.id) {
      return { active: false };
    }
    const isRefresh = found.kind === 'refresh';
    const exp = Math.floor(row.created_at / 1000) + row.expires_in;
    if (!isRefresh && this.expired(row)) return { active: false };
    return {
      active: true,
      scope: row.scopes,
      client_id: client.uid,
      token_type: 'Bearer',
      ...(isRefresh ? {} : { exp }),
      iat: Math.floor(row.created_at / 1000),
      sub: String(row.user_id),
    };
  }

  /** GitLab's `/oauth/token/info`; null for unknown, expired or revoked tokens. */
  async info(token: string, uidOf: (id: number) => Promise<string | null>) {
    const row = await this.oauth.tokenByDigest(digest(token));
    if (!row || row.revoked_at !== null || this.expired(row)) return null;
    const scopes = row.scopes.split(' ').filter(Boolean);
    const remaining = Math.max(
      0,
      Math.floor((row.created_at + row.expires_in * 1000 - this.clock.now()) / 1000),
    );
    return {
      resource_owner_id: row.user_id,
      scope: scopes,
      expires_in: remaining,
      application: { uid: row.application_id === null ? null : await uidOf(row.application_id) },
      created_at: Math.floor(row.created_at / 1000),
      scopes,
      expires_in_seconds: remaining,
    };
  }

  private expired(row: OAuthTokenRow): boolean {
    return this.clock.now() >= row.created_at + row.expires_in * 1000;
  }

  /** Lets `/api/v4` (and GraphQL) accept these tokens through the credentials layer. */
  resolver(rowVersion: RowVersion): TokenResolver {
    return new OAuthTokenResolver(this.oauth, rowVersion);
  }
}

/** Entries kept by the verification cache before it starts over. */
const CACHE_LIMIT = 10_000;

/**
 * Verification is one SHA-256 and, when neither OAuth tokens nor users have changed since, a Map
 * lookup: rows are cached under those tables' row version (which moves on every committed write to
 * them, ours or another process's), so a revocation or a blocked user is seen on the very next
 * request. Expiry is always evaluated against the clock.
 */
class OAuthTokenResolver implements TokenResolver {
  // GitLab reads OAuth tokens from `Authorization: Bearer` and `access_token`, not PRIVATE-TOKEN.
  readonly acceptsPrivateToken = false;
  private readonly cache = new Map<string, { version: number | string; found: TokenWithUser }>();

  constructor(
    private readonly oauth: OAuthStore,
    private readonly rowVersion: RowVersion,
  ) {}

  private async lookup(tokenDigest: string): Promise<TokenWithUser | undefined> {
    // Read the version before the rows, so a write racing the query invalidates the entry.
    const read = this.rowVersion();
    const version = read instanceof Promise ? await read : read;
    const hit = this.cache.get(tokenDigest);
    if (version !== null && hit && hit.version === version) return hit.found;
    const found = await this.oauth.tokenWithUser(tokenDigest);
    if (found && version !== null) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(tokenDigest, { version, found });
    }
    return found;
  }

  async resolve(token: string, now: number): Promise<Resolution | null> {
    // Other token kinds never pay for a lookup here.
    if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null;
    const found = await this.lookup(digest(token));
    if (!found) return null;
    const { token: row } = found;
    const user = userView(found.user);
    if (now >= row.created_at + row.expires_in * 1000) {
      return { error: new InvalidTokenError(TOKEN_EXPIRED) };
    }
    if (row.revoked_at !== null) return { error: new InvalidTokenError(TOKEN_REVOKED) };
    return {
      principal: {
        user,
        viewer: viewerOf(user),
        scopes: row.scopes.split(' ').filter(Boolean),
        kind: 'oauth_access_token',
        tokenId: row.id,
      },
    };
  }
}
