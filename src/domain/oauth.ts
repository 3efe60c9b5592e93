/**
 * OAuth 2.0 rules shared by the provider's faces and services: lifetimes, the error vocabulary with
 * GitLab's (Doorkeeper's) texts, scope requests, and token shapes.
 */
import { DomainError, type OAuthCode, type OAuthProtocolError } from './errors.js';
import { isScope, parseScopeList, type Scope } from './scopes.js';

/** GitLab: access tokens live 2 hours; authorization codes 10 minutes (Doorkeeper default). */
export const ACCESS_TOKEN_TTL_S = 7200;
export const AUTHORIZATION_CODE_TTL_S = 600;

/** Prefixes let the API skip the OAuth lookup for other token kinds without a query. */
export const ACCESS_TOKEN_PREFIX = 'pgoa-';
export const REFRESH_TOKEN_PREFIX = 'pgor-';
export const CLIENT_SECRET_PREFIX = 'pgos-';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'unsupported_response_type'
  | 'access_denied'
  | 'unsupported_token_type'
  | 'invalid_token'
  // OpenID Connect Core §3.1.2.6 (prompt=none) and RFC 8628 §3.5 (device-code polling).
  | 'login_required'
  | 'consent_required'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token';

export const OAUTH_DESCRIPTIONS: Record<OAuthErrorCode, string> = {
  invalid_request:
    'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_client:
    'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalid_grant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unauthorized_client: 'The client is not authorized to perform this request using this method.',
  unsupported_grant_type:
    'The authorization grant type is not supported by the authorization server.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  unsupported_response_type: 'The authorization server does not support this response type.',
  access_denied: 'The resource owner or authorization server denied the request.',
  unsupported_token_type:
    'The authorization server does not support the revocation of the presented token type.',
  invalid_token: 'The access token is invalid',
  login_required: 'The user must sign in, which prompt=none does not allow.',
  consent_required: 'The user has not granted this access, and prompt=none does not allow asking.',
  authorization_pending: 'The user has not yet approved or denied this device.',
  slow_down: 'Polling too fast: wait the interval, which is now 5 seconds longer.',
  expired_token: 'The device code has expired. Start again.',
};

export function missingParameter(name: string): string {
  return `Missing required parameter: ${name}.`;
}

/**
 * An RFC 6749 protocol error: OAUTH_CLIENT (401) for client-authentication failures, OAUTH (400)
 * otherwise, as Doorkeeper answers, unless the caller names another code (OAUTH_FORBIDDEN for a
 * client acting on another client's token); `basicChallenge` marks failures of HTTP Basic
 * credentials, which must carry `WWW-Authenticate: Basic` (RFC 6749 §5.2).
 */
export class OAuthError extends DomainError<OAuthCode> implements OAuthProtocolError {
  readonly basicChallenge: boolean;

  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string = OAUTH_DESCRIPTIONS[error],
    options: { basicChallenge?: boolean; code?: OAuthCode } = {},
  ) {
    super(
      options.code ??
        (error === 'invalid_client' || error === 'unauthorized_client' ? 'OAUTH_CLIENT' : 'OAUTH'),
      description,
    );
    this.basicChallenge = options.basicChallenge ?? false;
  }
}

/**
 * A requested scope string checked against what may be granted. Absent or empty → the default.
 * Scopes are space-delimited (RFC 6749 §3.3); unknown or not allowed → invalid_scope.
 */
export function resolveScopes(
  requested: string | undefined,
  allowed: readonly Scope[],
  fallback: readonly Scope[],
): Scope[] {
  if (requested === undefined || requested.trim() === '') return [...fallback];
  const scopes: Scope[] = [];
  for (const item of requested.split(' ').filter(Boolean)) {
    if (!isScope(item) || !allowed.includes(item)) throw new OAuthError('invalid_scope');
    if (!scopes.includes(item)) scopes.push(item);
  }
  return scopes;
}

export function splitScopes(value: string): Scope[] {
  return parseScopeList(value).scopes;
}
