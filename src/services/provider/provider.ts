/**
 * The OAuth provider and web identity services, wired together once per server, and the token
 * endpoint's dispatch over grant types (authorization_code, password, refresh_token, device_code),
 * with OpenID Connect ID tokens added where the scope has `openid`.
 */
import type { Config } from '../../config.js';
import { DEVICE_CODE_GRANT } from '../../domain/device-codes.js';
import { keyEncryptionKey } from '../../domain/key-sealing.js';
import { OAuthError, missingParameter, resolveScopes } from '../../domain/oauth.js';
import { type Scope, SCOPES } from '../../domain/scopes.js';
import type { OAuthApplicationRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { AccountService } from '../accounts/accounts.js';
import type { Clock } from '../clock.js';
import { ConsentService } from './consent.js';
import type { CredentialService } from '../accounts/credentials.js';
import { DeviceAuthorizationService } from './device-authorization.js';
import { IdTokenService, type OidcTokenResponse } from './id-tokens.js';
import { IdentityService } from './identity.js';
import { AuthorizationService } from './authorization.js';
import { ApplicationService, type ClientCredentials, applicationScopes } from './clients.js';
import { OAuthTokenService } from './tokens.js';
import { SessionService } from '../accounts/sessions.js';
import { SigningKeyService } from './signing-keys.js';
import { ThrottleService } from '../accounts/throttle.js';
import { TwoFactorService } from '../accounts/two-factor.js';

export const GRANT_TYPES = [
  'authorization_code',
  'password',
  'refresh_token',
  DEVICE_CODE_GRANT,
] as const;

/** What the password grant grants when no scope is asked for (GitLab's default scope). */
const PASSWORD_GRANT_DEFAULT: readonly Scope[] = ['api'];

export interface TokenRequest {
  params: Record<string, string | undefined>;
  client: ClientCredentials | null;
  address: string;
}

export interface TokenResult {
  response: OidcTokenResponse;
  /** Set for password grants, which are audit-logged (RFC 9700 §2.4 deviation, D1). */
  passwordGrant?: { userId: number; clientId: string | null };
}

export class OAuthProvider {
  constructor(
    private readonly config: Config,
    readonly applications: ApplicationService,
    readonly authorization: AuthorizationService,
    readonly tokens: OAuthTokenService,
    readonly accounts: AccountService,
    readonly device: DeviceAuthorizationService,
    readonly idTokens: IdTokenService,
  ) {}

  get passwordGrantEnabled(): boolean {
    return this.config.passwordGrant !== false;
  }

  grantTypes(): string[] {
    return GRANT_TYPES.filter((g) => g !== 'password' || this.passwordGrantEnabled);
  }

  async token(request: TokenRequest): Promise<TokenResult> {
    const { params, client, address } = request;
    const grantType = params.grant_type;
    if (grantType === undefined) {
      throw new OAuthError('invalid_request', missingParameter('grant_type'));
    }
    switch (grantType) {
      case 'authorization_code': {
        const app = await this.requireClient(client, address);
        const response = await this.authorization.exchange(app, params);
        return { response: await this.idTokens.attach(app, response, { withNonce: true }) };
      }
      case DEVICE_CODE_GRANT: {
        const app = await this.requireClient(client, address);
        const response = await this.device.exchange(app, params.device_code);
        return { response: await this.idTokens.attach(app, response, { withNonce: false }) };
      }
      case 'refresh_token': {
        const refreshToken = params.refresh_token;
        if (refreshToken === undefined) {
          throw new OAuthError('invalid_request', missingParameter('refresh_token'));
        }
        // Refresh tokens belong to an application: no client, no refresh.
        if (client === null) throw new OAuthError('invalid_grant');
        const app = await this.applications.authenticate(client, address);
        const response = await this.tokens.refresh(app, refreshToken, params.scope, (id) =>
          this.authorization.grantScopes(id),
        );
        // OIDC Core §12.2: a refresh may carry a new ID token (same sub, auth_time; no nonce).
        return { response: await this.idTokens.attach(app, response, { withNonce: false }) };
      }
      case 'password':
        if (this.passwordGrantEnabled) return this.passwordGrant(params, client, address);
        throw new OAuthError('unsupported_grant_type');
      default:
        throw new OAuthError('unsupported_grant_type');
    }
  }

  private async passwordGrant(
    params: Record<string, string | undefined>,
    client: ClientCredentials | null,
    address: string,
  ): Promise<TokenResult> {
    let app: OAuthApplicationRow | null = null;
    if (client !== null) app = await this.applications.authenticate(client, address);
    else if (!this.config.passwordGrantWithoutClient) throw new OAuthError('invalid_client');
    const allowed = app ? applicationScopes(app) : [...SCOPES];
    const fallback = app ? applicationScopes(app) : PASSWORD_GRANT_DEFAULT;
    const scopes = resolveScopes(params.scope, allowed, fallback);
    const { username, password } = params;
    if (username === undefined || password === undefined) throw new OAuthError('invalid_grant');
    const user = await this.accounts.userForPasswordGrant(username, password, address);
    // No refresh token: the specification's password-grant response has none.
    const response = await this.tokens.issue({
      applicationId: app?.id ?? null,
      userId: user.id,
      scopes,
      withRefresh: false,
      grantId: null,
    });
    return { response, passwordGrant: { userId: user.id, clientId: app?.uid ?? null } };
  }

  async requireClient(
    client: ClientCredentials | null,
    address: string,
  ): Promise<OAuthApplicationRow> {
    if (client === null) throw new OAuthError('invalid_client');
    return this.applications.authenticate(client, address);
  }
}

export interface OAuthServices {
  provider: OAuthProvider;
  applications: ApplicationService;
  authorization: AuthorizationService;
  tokens: OAuthTokenService;
  accounts: AccountService;
  sessions: SessionService;
  twoFactor: TwoFactorService;
  throttle: ThrottleService;
  signingKeys: SigningKeyService;
  identity: IdentityService;
  device: DeviceAuthorizationService;
  consent: ConsentService;
}

/** Builds the identity services and plugs OAuth access tokens into the API's credentials. */
export function createOAuthServices(
  config: Config,
  store: Store,
  clock: Clock,
  credentials: CredentialService,
): OAuthServices {
  const throttle = new ThrottleService(store.throttle, clock);
  const applications = new ApplicationService(store.applications, store.oauth, clock, throttle);
  const tokens = new OAuthTokenService(store.oauth, clock);
  const authorization = new AuthorizationService(applications, tokens, store.oauth, clock);
  const twoFactor = new TwoFactorService(store, clock);
  const accounts = new AccountService(store, clock, throttle, twoFactor);
  credentials.addResolver(tokens.resolver(store.rowVersion(['oauth_access_tokens', 'users'])));
  // Read when used: tests learn the external URL only once the server listens.
  const issuer = () => config.externalUrl;
  const kek = config.keyEncryptionKey === null ? null : keyEncryptionKey(config.keyEncryptionKey);
  const signingKeys = new SigningKeyService(store.signingKeys, clock, kek);
  const identity = new IdentityService(store, store.identity, store.oauth, clock, issuer);
  const idTokens = new IdTokenService(signingKeys, identity, store.oauth, clock, issuer);
  const device = new DeviceAuthorizationService(
    store.deviceGrants,
    store.oauth,
    applications,
    tokens,
    throttle,
    clock,
    issuer,
  );
  return {
    provider: new OAuthProvider(
      config,
      applications,
      authorization,
      tokens,
      accounts,
      device,
      idTokens,
    ),
    applications,
    authorization,
    tokens,
    accounts,
    sessions: new SessionService(store.sessions, store.secrets, clock),
    twoFactor,
    throttle,
    signingKeys,
    identity,
    device,
    consent: new ConsentService(store.identity, clock),
  };
}
