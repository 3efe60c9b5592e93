/**
 * Who a token's user is, in OpenID Connect claims: for ID tokens and for `/oauth/userinfo`.
 * Userinfo accepts live OAuth access tokens carrying `openid`; anything else is RFC 6750's
 * `invalid_token` (unknown, expired, revoked, blocked user) or `insufficient_scope`.
 */
import {
  InsufficientScopeError,
  InvalidTokenError,
  TOKEN_EXPIRED,
  TOKEN_REVOKED,
} from '../../domain/errors.js';
import { OAUTH_DESCRIPTIONS, splitScopes } from '../../domain/oauth.js';
import { identityClaims } from '../../domain/oidc.js';
import type { Scope } from '../../domain/scopes.js';
import { digest } from '../../domain/secrets.js';
import type { IdentityStore } from '../../store/identity.js';
import type { OAuthStore } from '../../store/oauth.js';
import type { Store } from '../../store/store.js';
import { membershipDay } from '../../domain/membership-expiry.js';
import type { Clock } from '../clock.js';

export class IdentityService {
  constructor(
    private readonly store: Store,
    private readonly identity: IdentityStore,
    private readonly oauth: OAuthStore,
    private readonly clock: Clock,
    private readonly externalUrl: () => string,
  ) {}

  /** The claims `scopes` release about an active user; null when the user cannot sign in. */
  async claims(userId: number, scopes: readonly Scope[]): Promise<Record<string, unknown> | null> {
    const user = await this.store.users.byId(userId);
    if (!user || user.state !== 'active') return null;
    const groups = scopes.includes('profile')
      ? await this.identity.groupsOf(user.id, membershipDay(this.clock.now()))
      : [];
    return identityClaims({ user, groups, externalUrl: this.externalUrl() }, scopes);
  }

  /** OIDC Core §5.3: the claims for a presented access token. */
  async userInfo(accessToken: string): Promise<Record<string, unknown>> {
    const row =
      accessToken.length <= 200 ? await this.oauth.tokenByDigest(digest(accessToken)) : undefined;
    if (!row) throw new InvalidTokenError(OAUTH_DESCRIPTIONS.invalid_token);
    if (this.clock.now() >= row.created_at + row.expires_in * 1000) {
      throw new InvalidTokenError(TOKEN_EXPIRED);
    }
    if (row.revoked_at !== null) throw new InvalidTokenError(TOKEN_REVOKED);
    const scopes = splitScopes(row.scopes);
    if (!scopes.includes('openid')) throw new InsufficientScopeError(['openid']);
    const claims = await this.claims(row.user_id, scopes);
    if (!claims) throw new InvalidTokenError(OAUTH_DESCRIPTIONS.invalid_token);
    return claims;
  }
}
