/**
 * ID tokens (OIDC Core §2, §3.1.3.6) for token responses whose scope includes `openid`: signed
 * with the client's registered algorithm (RS256 unless it chose ES256) by the active key, carrying
 * the identity claims the scopes release, `auth_time`, `at_hash`, and the request's `nonce` on
 * the code exchange (not on refresh, where no request carried one).
 */
import { SignJWT } from 'jose';
import { splitScopes } from '../../domain/oauth.js';
import {
  DEFAULT_ID_TOKEN_ALG,
  ID_TOKEN_TTL_S,
  isIdTokenAlg,
  tokenHash,
} from '../../domain/oidc.js';
import { digest } from '../../domain/secrets.js';
import type { OAuthStore } from '../../store/oauth.js';
import type { OAuthApplicationRow } from '../../store/schema.js';
import type { Clock } from '../clock.js';
import type { IdentityService } from './identity.js';
import type { TokenResponse } from './tokens.js';
import type { SigningKeyService } from './signing-keys.js';

export type OidcTokenResponse = TokenResponse & { id_token?: string };

export class IdTokenService {
  constructor(
    private readonly keys: SigningKeyService,
    private readonly identity: IdentityService,
    private readonly oauth: OAuthStore,
    private readonly clock: Clock,
    private readonly issuer: () => string,
  ) {}

  /**
   * Adds `id_token` when the response's scope has `openid`. The token row (just stored) tells
   * the user, the sign-in time and the grant, whose nonce is echoed when `withNonce`.
   */
  async attach(
    app: OAuthApplicationRow,
    response: TokenResponse,
    options: { withNonce: boolean },
  ): Promise<OidcTokenResponse> {
    const scopes = splitScopes(response.scope);
    if (!scopes.includes('openid')) return response;
    const row = await this.oauth.tokenByDigest(digest(response.access_token));
    if (!row) return response;
    const grant =
      options.withNonce && row.grant_id !== null ? await this.oauth.grantById(row.grant_id) : null;
    const claims = await this.identity.claims(row.user_id, scopes);
    if (!claims) return response;
    const configured = app.id_token_signed_response_alg;
    const alg = configured !== null && isIdTokenAlg(configured) ? configured : DEFAULT_ID_TOKEN_ALG;
    const { kid, key } = await this.keys.signingKey(alg);
    const now = Math.floor(this.clock.now() / 1000);
    const payload: Record<string, unknown> = {
      ...claims,
      at_hash: tokenHash(response.access_token, alg),
    };
    if (row.auth_time !== null) payload.auth_time = Math.floor(row.auth_time / 1000);
    if (grant?.nonce) payload.nonce = grant.nonce;
    const idToken = await new SignJWT(payload)
      .setProtectedHeader({ alg, kid, typ: 'JWT' })
      .setIssuer(this.issuer())
      .setSubject(String(row.user_id))
      .setAudience(app.uid)
      .setIssuedAt(now)
      .setExpirationTime(now + ID_TOKEN_TTL_S)
      .sign(key);
    return { ...response, id_token: idToken };
  }
}
