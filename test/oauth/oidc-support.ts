/**
 * OpenID Connect test support: OIDC-capable applications, an openid-client configuration for
 * them, and the code flow driven through the consent page by the plain-HTTP browser agent.
 */
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import { Browser, type OAuthWorld, REDIRECT, type RegisteredApp } from './support.js';

/** openid-client checks `iat`/`exp` against the real time: put the server's clock there. */
export function useRealTime(world: OAuthWorld): void {
  (world.server.clock as unknown as { current: number }).current = Date.now();
}

export async function registerOidcApp(
  world: OAuthWorld,
  options: {
    name?: string;
    scopes?: string[];
    alg?: string;
    confidential?: boolean;
    redirectUris?: string;
  } = {},
): Promise<RegisteredApp> {
  const { app, secret } = await world.server.services.oauth.applications.create(world.alice.id, {
    name: options.name ?? 'OIDC App',
    redirectUris: options.redirectUris ?? REDIRECT,
    scopes: options.scopes ?? ['openid', 'profile', 'email', 'read_user'],
    confidential: options.confidential ?? true,
    ...(options.alg ? { idTokenSignedResponseAlg: options.alg } : {}),
  });
  return { id: app.id, uid: app.uid, secret };
}

export async function discover(
  world: OAuthWorld,
  app: RegisteredApp,
  metadata: Partial<client.ClientMetadata> = {},
): Promise<client.Configuration> {
  // Non-repudiation: the client also verifies the ID token's signature against the JWKS (over
  // TLS it could skip that, OIDC Core §3.1.3.7), so a bad signature or key fails the test.
  return client.discovery(
    new URL(world.server.url),
    app.uid,
    metadata,
    client.ClientSecretBasic(app.secret),
    { execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks] },
  );
}

export interface Checks {
  verifier: string;
  nonce: string;
  state: string;
}

/** Builds the request with openid-client, approves it, returns the callback URL and checks. */
export async function authorize(
  config: client.Configuration,
  browser: Browser,
  scope = 'openid profile email',
  extra: Record<string, string> = {},
): Promise<{ callback: URL; checks: Checks }> {
  const verifier = client.randomPKCECodeVerifier();
  const checks = { verifier, nonce: client.randomNonce(), state: client.randomState() };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce: checks.nonce,
    state: checks.state,
    ...extra,
  });
  const reply = await browser.consent(Object.fromEntries(url.searchParams));
  assert.equal(reply.status, 302, reply.text);
  return { callback: new URL(reply.headers.get('location')!), checks };
}

export function exchange(config: client.Configuration, callback: URL, checks: Checks) {
  return client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: checks.verifier,
    expectedNonce: checks.nonce,
    expectedState: checks.state,
    idTokenExpected: true,
  });
}

/** The decoded parts of a compact JWS (no verification: for assertions on what was sent). */
export function decodeJwt(jwt: string): {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
} {
  const [h, p] = jwt.split('.');
  const json = (part: string) =>
    JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  return { header: json(h!), payload: json(p!) };
}
