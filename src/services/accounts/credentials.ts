/**
 * Authenticating API calls. The face hands over whatever token-like values the request carried;
 * this decides which one counts, which token store owns it, and whether it is still valid.
 * OAuth access tokens plug in as another resolver (see `TokenResolver`).
 */
import {
  ForbiddenError,
  InvalidRequestError,
  InvalidTokenError,
  TOKEN_EXPIRED,
  TOKEN_REVOKED,
  UnauthenticatedError,
} from '../../domain/errors.js';
import { requireScope, type Scope } from '../../domain/scopes.js';
import { digest } from '../../domain/secrets.js';
import { type Viewer, viewerOf } from '../../domain/visibility.js';
import type { PersonalAccessTokenRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { isTemporarilyUnavailable } from '../health.js';
import { type UserView, userView } from '../views.js';

export interface PresentedCredentials {
  /** `PRIVATE-TOKEN` header. */
  privateTokenHeader?: string | undefined;
  /** `?private_token=`. */
  privateTokenParam?: string | undefined;
  /** The value after `Bearer ` in `Authorization`. */
  bearerHeader?: string | undefined;
  /** `?access_token=`. */
  accessTokenParam?: string | undefined;
}

/** `browser_session`: a signed-in browser on GraphiQL, with its session's CSRF token. */
export type PrincipalKind = 'personal_access_token' | 'oauth_access_token' | 'browser_session';

export interface Principal {
  user: UserView;
  viewer: Viewer;
  scopes: readonly string[];
  kind: PrincipalKind;
  tokenId: number;
}

export type Resolution = { principal: Principal } | { error: InvalidTokenError };

/** A family of tokens. `resolve` answers null for a token that is not of its family. */
export interface TokenResolver {
  /** Whether the resolver may see tokens from `PRIVATE-TOKEN`/`private_token` (PATs only). */
  readonly acceptsPrivateToken: boolean;
  resolve(token: string, now: number): Promise<Resolution | null>;
}

export const BLOCKED_REASON = 'Your account has been blocked.';

export class CredentialService {
  private readonly resolvers: TokenResolver[] = [];

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.resolvers.push(new PersonalAccessTokenResolver(store));
  }

  /** OAuth and other token families register themselves ahead of personal access tokens. */
  addResolver(resolver: TokenResolver): void {
    this.resolvers.unshift(resolver);
  }

  /**
   * Returns the principal, null for an anonymous request, or throws: 400 when a bearer token is
   * both in the header and the query (RFC 6750 §2), 401 for unknown, expired or revoked tokens,
   * 403 for blocked users.
   */
  async authenticate(presented: PresentedCredentials): Promise<Principal | null> {
    const bearer = nonEmpty(presented.bearerHeader);
    const accessParam = nonEmpty(presented.accessTokenParam);
    if (bearer !== undefined && accessParam !== undefined) {
      throw new InvalidRequestError('Both Authorization header and payload includes access token.');
    }
    const oauthCandidate = accessParam ?? bearer;
    const privateToken =
      nonEmpty(presented.privateTokenParam) ?? nonEmpty(presented.privateTokenHeader);
    const token = oauthCandidate ?? privateToken;
    if (token === undefined) return null;
    const now = this.clock.now();
    for (const resolver of this.resolvers) {
      if (oauthCandidate === undefined && !resolver.acceptsPrivateToken) continue;
      const result = await resolver.resolve(token, now);
      if (result === null) continue;
      if ('error' in result) throw result.error;
      if (result.principal.user.state !== 'active') throw new ForbiddenError(BLOCKED_REASON);
      return result.principal;
    }
    throw new UnauthenticatedError();
  }

  /** Authenticated or not, the principal must hold a scope this endpoint accepts. */
  authorize(principal: Principal | null, accepted: readonly Scope[], safeMethod: boolean): void {
    if (principal) requireScope(principal.scopes, accepted, safeMethod);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Tokens older than this since their last recorded use get `last_used_at` written again. */
const LAST_USED_GRANULARITY_MS = 10 * 60_000;

/** Start of the expiry day, UTC: GitLab tokens expire at midnight UTC on their expiry date. */
export function expiryInstant(expiresAt: string | null): number | null {
  return expiresAt === null ? null : Date.parse(`${expiresAt}T00:00:00.000Z`);
}

class PersonalAccessTokenResolver implements TokenResolver {
  readonly acceptsPrivateToken = true;
  private readonly principals = new WeakMap<PersonalAccessTokenRow, Principal>();

  constructor(private readonly store: Store) {}

  async resolve(token: string, now: number): Promise<Resolution | null> {
    const row = await this.store.tokens.byDigest(digest(token));
    if (!row) return null;
    const expiry = expiryInstant(row.expires_at);
    if (expiry !== null && now >= expiry) return { error: new InvalidTokenError(TOKEN_EXPIRED) };
    if (row.revoked) return { error: new InvalidTokenError(TOKEN_REVOKED) };
    const userRow = await this.store.users.byId(row.user_id);
    if (!userRow) return null;
    const user = userView(userRow);
    if (row.last_used_at === null || now - row.last_used_at > LAST_USED_GRANULARITY_MS) {
      // GitLab also writes last_used_at at most every 10 minutes: no write on the hot path. It
      // is bookkeeping: a read is not refused because the write lock is held elsewhere.
      try {
        await this.store.tokens.touch(row.id, now);
      } catch (error) {
        if (!isTemporarilyUnavailable(error)) throw error;
      }
    }
    // While the store serves the same cached rows, the same principal serves every request.
    const known = this.principals.get(row);
    if (known && known.user === user) return { principal: known };
    const principal: Principal = {
      user,
      viewer: viewerOf(user),
      scopes: row.scopes.split(' ').filter(Boolean),
      kind: 'personal_access_token',
      tokenId: row.id,
    };
    this.principals.set(row, principal);
    return { principal };
  }
}
