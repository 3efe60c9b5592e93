/**
 * The authorization endpoint's rules and the authorization-code grant: validating a request in
 * GitLab's order (with RFC 6749 §4.1.2.1 deciding what may be redirected), issuing codes bound to
 * client, redirect URI and PKCE challenge, and exchanging them exactly once.
 */
import {
  AUTHORIZATION_CODE_TTL_S,
  OAUTH_DESCRIPTIONS,
  OAuthError,
  type OAuthErrorCode,
  missingParameter,
  resolveScopes,
  splitScopes,
} from '../../domain/oauth.js';
import { type PromptValue, parseOidcParams } from '../../domain/oidc-prompt.js';
import { isPkceMethod, isValidChallenge, isValidVerifier, verifyPkce } from '../../domain/pkce.js';
import { matchRedirectUri } from '../../domain/redirect-uri.js';
import type { Scope } from '../../domain/scopes.js';
import { digest, randomSecret } from '../../domain/secrets.js';
import type { OAuthStore } from '../../store/oauth.js';
import type { OAuthApplicationRow } from '../../store/schema.js';
import { type ApplicationView, applicationView } from '../views.js';
import type { Clock } from '../clock.js';
import { type ApplicationService, applicationRedirectUris, applicationScopes } from './clients.js';
import type { OAuthTokenService, TokenResponse } from './tokens.js';

export type AuthorizeParams = Record<string, string | undefined>;

export interface AuthorizationRequest {
  app: ApplicationView;
  redirectUri: string;
  scopes: Scope[];
  state: string | undefined;
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | 'plain' | null;
  /** OpenID Connect (OIDC Core §3.1.2.1). */
  nonce: string | null;
  prompt: PromptValue[];
  maxAge: number | null;
}

/**
 * `fatal`: the client or its redirect URI cannot be trusted — show an error page, never redirect.
 * `redirect`: report the error to the (verified) redirect URI.
 */
export type AuthorizationValidation =
  | { kind: 'ok'; request: AuthorizationRequest }
  | { kind: 'fatal'; error: OAuthErrorCode; description: string }
  | {
      kind: 'redirect';
      redirectUri: string;
      error: OAuthErrorCode;
      description: string;
      state: string | undefined;
    };

/** Parameters of an authorization request; others are ignored (RFC 6749 §3.1), even repeated. */
const AUTHORIZE_PARAMS: readonly string[] = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
  'prompt',
  'max_age',
];

export const PKCE_METHOD_MESSAGE = 'The code_challenge_method must be one of plain, S256.';
export const PKCE_REQUIRED_MESSAGE =
  'Public clients must use PKCE: code_challenge and code_challenge_method are required.';

export class AuthorizationService {
  constructor(
    private readonly applications: ApplicationService,
    private readonly tokens: OAuthTokenService,
    private readonly oauth: OAuthStore,
    private readonly clock: Clock,
  ) {}

  async validate(
    params: AuthorizeParams,
    doubled: ReadonlySet<string>,
  ): Promise<AuthorizationValidation> {
    const fatal = (error: OAuthErrorCode, description: string = OAUTH_DESCRIPTIONS[error]) =>
      ({ kind: 'fatal', error, description }) as const;
    for (const name of ['client_id', 'redirect_uri']) {
      if (doubled.has(name)) return fatal('invalid_request', duplicated(name));
    }
    const clientId = params.client_id;
    if (clientId === undefined) return fatal('invalid_request', missingParameter('client_id'));
    const app = clientId.length <= 200 ? await this.applications.byUid(clientId) : undefined;
    if (!app) return fatal('invalid_client');
    const presented = params.redirect_uri;
    if (presented === undefined) return fatal('invalid_request', missingParameter('redirect_uri'));
    if (matchRedirectUri(applicationRedirectUris(app), presented) === null) {
      return fatal('invalid_request', 'The redirect URI included is not valid.');
    }

    const state = doubled.has('state') ? undefined : params.state;
    const redirect = (error: OAuthErrorCode, description: string = OAUTH_DESCRIPTIONS[error]) =>
      ({ kind: 'redirect', redirectUri: presented, error, description, state }) as const;
    const twice = [...doubled].find((name) => AUTHORIZE_PARAMS.includes(name));
    if (twice !== undefined) return redirect('invalid_request', duplicated(twice));
    const responseType = params.response_type;
    if (responseType === undefined) {
      return redirect('invalid_request', missingParameter('response_type'));
    }
    if (responseType !== 'code') return redirect('unsupported_response_type');
    let scopes: Scope[];
    try {
      scopes = resolveScopes(params.scope, applicationScopes(app), applicationScopes(app));
    } catch {
      return redirect('invalid_scope');
    }
    const challenge = params.code_challenge;
    const method = params.code_challenge_method;
    if (challenge === undefined && method !== undefined) {
      return redirect('invalid_request', missingParameter('code_challenge'));
    }
    if (challenge !== undefined) {
      // GitLab requires the method when a challenge is sent (no silent `plain` default).
      if (method === undefined || !isPkceMethod(method)) {
        return redirect('invalid_request', PKCE_METHOD_MESSAGE);
      }
      if (!isValidChallenge(challenge)) {
        return redirect('invalid_request', 'The code_challenge is malformed.');
      }
    } else if (app.confidential === 0) {
      return redirect('invalid_request', PKCE_REQUIRED_MESSAGE);
    }
    const oidc = parseOidcParams(params);
    if ('problem' in oidc) return redirect('invalid_request', oidc.problem);
    return {
      kind: 'ok',
      request: {
        app: applicationView(app),
        redirectUri: presented,
        scopes,
        state,
        codeChallenge: challenge ?? null,
        codeChallengeMethod:
          challenge !== undefined && method !== undefined && isPkceMethod(method) ? method : null,
        ...oidc.ok,
      },
    };
  }

  /** What a consent form is bound to: a CSRF token minted for one request fits no other. */
  fingerprint(request: AuthorizationRequest): string {
    return JSON.stringify([
      request.app.uid,
      request.redirectUri,
      request.scopes.join(' '),
      request.state ?? null,
      request.codeChallenge,
      request.codeChallengeMethod,
      request.nonce,
    ]);
  }

  /**
   * 256 random bits, single use, ten minutes, bound to client, redirect URI and challenge; the
   * nonce and the sign-in time wait in the grant for the ID token.
   */
  async issueCode(
    userId: number,
    request: AuthorizationRequest,
    authTime: number | null = null,
  ): Promise<string> {
    const code = randomSecret(32);
    await this.oauth.createGrant({
      codeDigest: digest(code),
      applicationId: request.app.id,
      userId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      createdAt: this.clock.now(),
      expiresIn: AUTHORIZATION_CODE_TTL_S,
      nonce: request.nonce,
      authTime,
    });
    return code;
  }

  /**
   * The authorization_code grant, in Doorkeeper's order: parameters → grant (exists, this
   * client's, unused, live) → redirect URI → PKCE → atomic consumption. A code presented again
   * revokes the grant and every token that came from it (RFC 6749 §4.1.2).
   */
  async exchange(
    client: OAuthApplicationRow,
    params: {
      code?: string | undefined;
      redirect_uri?: string | undefined;
      code_verifier?: string | undefined;
    },
  ): Promise<TokenResponse> {
    const { code, redirect_uri: redirectUri, code_verifier: verifier } = params;
    if (code === undefined) throw new OAuthError('invalid_request', missingParameter('code'));
    if (redirectUri === undefined) {
      throw new OAuthError('invalid_request', missingParameter('redirect_uri'));
    }
    if (verifier !== undefined && !isValidVerifier(verifier)) {
      throw new OAuthError('invalid_request', 'The code_verifier is malformed.');
    }
    const grant = code.length <= 200 ? await this.oauth.grantByDigest(digest(code)) : undefined;
    if (!grant || grant.application_id !== client.id) throw new OAuthError('invalid_grant');
    const now = this.clock.now();
    if (grant.consumed_at !== null) {
      await this.oauth.revokeGrantFamily(grant.id, now);
      throw new OAuthError('invalid_grant');
    }
    if (grant.revoked_at !== null) throw new OAuthError('invalid_grant');
    if (now >= grant.created_at + grant.expires_in * 1000) throw new OAuthError('invalid_grant');
    if (grant.redirect_uri !== redirectUri) throw new OAuthError('invalid_grant');
    if (grant.code_challenge !== null) {
      if (verifier === undefined) {
        throw new OAuthError('invalid_request', missingParameter('code_verifier'));
      }
      const method = grant.code_challenge_method ?? 'plain';
      if (!isPkceMethod(method) || !verifyPkce(method, grant.code_challenge, verifier)) {
        throw new OAuthError('invalid_grant');
      }
    } else if (verifier !== undefined) {
      // A verifier for a code issued without a challenge: a downgrade attempt (RFC 9700 §4.8.2).
      throw new OAuthError('invalid_grant');
    }
    return this.tokens.issuePair(
      {
        applicationId: client.id,
        userId: grant.user_id,
        scopes: splitScopes(grant.scopes),
        grantId: grant.id,
        authTime: grant.auth_time,
      },
      (row) => this.oauth.consumeGrantAndIssue(grant.id, now, row),
      () => this.oauth.revokeGrantFamily(grant.id, now),
    );
  }

  /** The scopes a grant was consented with (the ceiling for refreshes). */
  async grantScopes(grantId: number): Promise<Scope[] | null> {
    const grant = await this.oauth.grantById(grantId);
    return grant ? splitScopes(grant.scopes) : null;
  }
}

function duplicated(name: string): string {
  return `The request contains a duplicated parameter: ${name}.`;
}
