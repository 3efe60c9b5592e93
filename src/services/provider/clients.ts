/**
 * OAuth applications: registration from the profile pages (secret shown once, stored as a digest),
 * secret renewal, deletion (revokes everything issued to it) and client authentication at the
 * token, revocation and introspection endpoints.
 */
import { ValidationError } from '../../domain/errors.js';
import { CLIENT_SECRET_PREFIX, OAuthError } from '../../domain/oauth.js';
import { ID_TOKEN_ALGS, isIdTokenAlg } from '../../domain/oidc.js';
import { redirectUriProblem } from '../../domain/redirect-uri.js';
import { type Scope, SCOPES, isScope } from '../../domain/scopes.js';
import { digest, randomSecret, secretsEqual } from '../../domain/secrets.js';
import type { ApplicationStore } from '../../store/applications.js';
import type { OAuthStore } from '../../store/oauth.js';
import type { OAuthApplicationRow } from '../../store/schema.js';
import type { Clock } from '../clock.js';
import { type ApplicationView, applicationView } from '../views.js';
import type { ThrottleService } from '../accounts/throttle.js';

/** How the client presented itself: HTTP Basic, body parameters, or `client_id` alone. */
export interface ClientCredentials {
  method: 'basic' | 'post' | 'none';
  clientId: string;
  clientSecret?: string | undefined;
}

export interface ApplicationInput {
  name: string;
  redirectUris: string;
  scopes: readonly string[];
  confidential: boolean;
  /** `RS256` (default) or `ES256`: how the application's ID tokens are signed. */
  idTokenSignedResponseAlg?: string | undefined;
}

export class ApplicationService {
  constructor(
    private readonly apps: ApplicationStore,
    private readonly oauth: OAuthStore,
    private readonly clock: Clock,
    private readonly throttle: ThrottleService,
  ) {}

  async list(ownerId: number): Promise<ApplicationView[]> {
    return (await this.apps.forOwner(ownerId)).map(applicationView);
  }

  byUid(uid: string): Promise<OAuthApplicationRow | undefined> {
    return this.apps.byUid(uid);
  }

  async byId(id: number): Promise<ApplicationView | undefined> {
    const row = await this.apps.byId(id);
    return row && applicationView(row);
  }

  async create(
    ownerId: number,
    input: ApplicationInput,
  ): Promise<{ app: ApplicationView; secret: string }> {
    const problems: string[] = [];
    const name = input.name.trim();
    if (name === '' || name.length > 255) problems.push('Name must be 1 to 255 characters');
    const uris = input.redirectUris
      .split(/\r?\n/)
      .map((u) => u.trim())
      .filter(Boolean);
    if (uris.length === 0) problems.push('Redirect URI is required');
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) problems.push(`Redirect URI ${uri} ${problem}`);
    }
    const scopes = input.scopes.filter(isScope);
    if (scopes.length === 0 || scopes.length !== input.scopes.length) {
      problems.push(`Scopes must be chosen from ${SCOPES.join(', ')}`);
    }
    const alg = input.idTokenSignedResponseAlg;
    if (alg !== undefined && !isIdTokenAlg(alg)) {
      problems.push(`ID token algorithm must be one of ${ID_TOKEN_ALGS.join(', ')}`);
    }
    if (problems.length > 0) throw new ValidationError(problems);
    const secret = newClientSecret();
    const app = await this.apps.create({
      uid: randomSecret(24),
      secretDigest: digest(secret),
      name,
      redirectUris: [...new Set(uris)],
      scopes: scopes as Scope[],
      confidential: input.confidential,
      ownerId,
      createdAt: this.clock.now(),
      idTokenSignedResponseAlg: alg ?? null,
    });
    return { app: applicationView(app), secret };
  }

  /** A new secret; the old one stops authenticating at once. Tokens already issued live on. */
  async renewSecret(ownerId: number, id: number): Promise<string | null> {
    const secret = newClientSecret();
    return (await this.apps.setSecretDigest(id, ownerId, digest(secret))) ? secret : null;
  }

  async delete(ownerId: number, id: number): Promise<boolean> {
    const app = await this.apps.byId(id);
    if (!app || app.owner_id !== ownerId) return false;
    await this.oauth.revokeForApplication(id, this.clock.now());
    return this.apps.delete(id, ownerId);
  }

  /**
   * The client, or `invalid_client` (401; with a Basic challenge when Basic was used). Unknown
   * clients and wrong secrets get the same answer. Public clients authenticate with `client_id`
   * alone; a confidential one must present its secret. Failures count per address.
   */
  async authenticate(
    credentials: ClientCredentials,
    address: string,
  ): Promise<OAuthApplicationRow> {
    // Counted before the secret is compared, so parallel guesses cannot outrun the limit.
    const reservation = await this.throttle.reserve([['client', address]]);
    let app: OAuthApplicationRow | undefined;
    try {
      app = await this.identify(credentials);
    } catch (error) {
      await this.throttle.failed(reservation);
      throw error;
    }
    if (!app) {
      await this.throttle.failed(reservation);
      throw new OAuthError('invalid_client', undefined, {
        basicChallenge: credentials.method === 'basic',
      });
    }
    await this.throttle.succeeded(reservation);
    return app;
  }

  /** The application these credentials prove, if they prove one. */
  private async identify(credentials: ClientCredentials): Promise<OAuthApplicationRow | undefined> {
    const app =
      credentials.clientId.length <= 200 ? await this.apps.byUid(credentials.clientId) : undefined;
    if (!app) return undefined;
    if (credentials.clientSecret !== undefined) {
      return secretsEqual(digest(credentials.clientSecret), app.secret_digest) ? app : undefined;
    }
    // Public clients authenticate with `client_id` alone; a confidential one needs its secret.
    return app.confidential === 1 ? undefined : app;
  }
}

function newClientSecret(): string {
  return `${CLIENT_SECRET_PREFIX}${randomSecret(32)}`;
}

export function applicationScopes(app: OAuthApplicationRow): Scope[] {
  return applicationView(app).scopes.filter(isScope);
}

export function applicationRedirectUris(app: OAuthApplicationRow): string[] {
  return applicationView(app).redirectUris;
}
