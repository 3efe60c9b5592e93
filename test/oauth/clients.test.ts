/** Real client libraries drive every flow against the running server. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import {
  Browser,
  type OAuthWorld,
  PASSWORD,
  REDIRECT,
  startOAuthServer,
  signedInBrowser,
} from './support.js';

describe('oauth4webapi 3.8.8 against pulsegate', () => {
  let world: OAuthWorld;
  let browser: Browser;
  let as: oauth.AuthorizationServer;
  let oauthClient: oauth.Client;
  const insecure = { [oauth.allowInsecureRequests]: true };
  before(async () => {
    world = await startOAuthServer();
    browser = await signedInBrowser(world);
    const issuer = new URL(world.server.url);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    oauthClient = { client_id: world.app.uid };
  });
  after(() => world.close());

  const authorize = async (extra: Record<string, string> = {}) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const reply = await browser.consent({
      client_id: world.app.uid,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'api read_user',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    });
    return { callback: new URL(reply.headers.get('location')!), verifier, state };
  };

  /** Authorizes, checks the response, and returns the code grant to send (again, if asked). */
  const codeGrant = async (auth: oauth.ClientAuth) => {
    const { callback, verifier, state } = await authorize();
    const params = oauth.validateAuthResponse(as, oauthClient, callback, state);
    return () =>
      oauth.authorizationCodeGrantRequest(
        as,
        oauthClient,
        auth,
        params,
        REDIRECT,
        verifier,
        insecure,
      );
  };

  it('code + PKCE, refresh, API call, revocation', async () => {
    const auth = oauth.ClientSecretBasic(world.app.secret);
    const res = await (await codeGrant(auth))();
    const tokens = await oauth.processAuthorizationCodeResponse(as, oauthClient, res);
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.expires_in, 7200);
    const api = await oauth.protectedResourceRequest(
      tokens.access_token,
      'GET',
      new URL(`${world.server.url}/api/v4/events`),
      undefined,
      undefined,
      insecure,
    );
    assert.equal(api.status, 200);
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      oauthClient,
      await oauth.refreshTokenGrantRequest(as, oauthClient, auth, tokens.refresh_token!, insecure),
    );
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    const revoked = await oauth.revocationRequest(
      as,
      oauthClient,
      auth,
      refreshed.access_token,
      insecure,
    );
    await oauth.processRevocationResponse(revoked);
    // A revoked token answers 401 with a Bearer invalid_token challenge, which the library raises.
    await assert.rejects(
      oauth.protectedResourceRequest(
        refreshed.access_token,
        'GET',
        new URL(`${world.server.url}/api/v4/user`),
        undefined,
        undefined,
        insecure,
      ),
      (error: unknown) => {
        assert.ok(error instanceof oauth.WWWAuthenticateChallengeError);
        assert.equal(error.cause[0]?.parameters.error, 'invalid_token');
        return true;
      },
    );
  });

  it('client_secret_post works too, and a replayed code surfaces as ResponseBodyError invalid_grant (D10)', async () => {
    const auth = oauth.ClientSecretPost(world.app.secret);
    const send = await codeGrant(auth);
    const first = await send();
    await oauth.processAuthorizationCodeResponse(as, oauthClient, first);
    const second = await send();
    await assert.rejects(
      oauth.processAuthorizationCodeResponse(as, oauthClient, second),
      (error: unknown) => {
        assert.ok(error instanceof oauth.ResponseBodyError);
        assert.equal(error.error, 'invalid_grant');
        return true;
      },
    );
  });

  it('B.18: iss is validated — errors carry it too; a trailing slash fails', async () => {
    const denied = await browser.consent(
      { client_id: world.app.uid, redirect_uri: REDIRECT, response_type: 'code', state: 'd' },
      'deny',
    );
    const callback = new URL(denied.headers.get('location')!);
    assert.throws(
      () => oauth.validateAuthResponse(as, oauthClient, callback, 'd'),
      (error: unknown) => {
        assert.ok(error instanceof oauth.AuthorizationResponseError);
        assert.equal(error.error, 'access_denied');
        return true;
      },
    );
    const scopeError = await browser.fetch(
      `/oauth/authorize?${new URLSearchParams({ client_id: world.app.uid, redirect_uri: REDIRECT, response_type: 'code', scope: 'nope', state: 'e' })}`,
    );
    assert.throws(
      () =>
        oauth.validateAuthResponse(
          as,
          oauthClient,
          new URL(scopeError.headers.get('location')!),
          'e',
        ),
      oauth.AuthorizationResponseError,
    );
    const { callback: good, state } = await authorize();
    good.searchParams.set('iss', `${world.server.url}/`);
    assert.throws(
      () => oauth.validateAuthResponse(as, oauthClient, good, state),
      (error: unknown) => {
        assert.ok(!(error instanceof oauth.AuthorizationResponseError));
        return true;
      },
    );
  });

  it('password grant through genericTokenEndpointRequest', async () => {
    const res = await oauth.genericTokenEndpointRequest(
      as,
      oauthClient,
      oauth.ClientSecretBasic(world.app.secret),
      'password',
      { username: 'alice', password: PASSWORD },
      insecure,
    );
    const tokens = await oauth.processGenericTokenEndpointResponse(as, oauthClient, res);
    assert.equal(tokens.scope, 'api read_user');
    assert.equal(tokens.refresh_token, undefined);
  });

  it('a wrong Basic secret surfaces as a Basic challenge (WWWAuthenticateChallengeError)', async () => {
    const res = await oauth.genericTokenEndpointRequest(
      as,
      oauthClient,
      oauth.ClientSecretBasic('wrong'),
      'password',
      { username: 'alice', password: PASSWORD },
      insecure,
    );
    await assert.rejects(
      oauth.processGenericTokenEndpointResponse(as, oauthClient, res),
      (error: unknown) => {
        assert.ok(error instanceof oauth.WWWAuthenticateChallengeError);
        assert.equal(error.cause[0]?.scheme, 'basic');
        return true;
      },
    );
  });
});

describe('openid-client 6.8.9 against pulsegate', () => {
  let world: OAuthWorld;
  let browser: Browser;
  before(async () => {
    world = await startOAuthServer();
    browser = await signedInBrowser(world);
  });
  after(() => world.close());

  for (const mode of ['oauth2', 'oidc'] as const) {
    it(`discovery (${mode}), code + PKCE with Basic, refresh, password grant, revocation, API call`, async () => {
      const config = await client.discovery(
        new URL(world.server.url),
        world.app.uid,
        world.app.secret,
        client.ClientSecretBasic(world.app.secret),
        {
          execute: [client.allowInsecureRequests],
          ...(mode === 'oauth2' ? { algorithm: 'oauth2' as const } : {}),
        },
      );
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'api',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      });
      const reply = await browser.consent(Object.fromEntries(url.searchParams));
      const tokens = await client.authorizationCodeGrant(
        config,
        new URL(reply.headers.get('location')!),
        {
          pkceCodeVerifier: verifier,
          expectedState: state,
        },
      );
      assert.equal(tokens.scope, 'api');
      const events = await client.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(`${world.server.url}/api/v4/events`),
        'GET',
      );
      assert.equal(events.status, 200);
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
      assert.ok(refreshed.access_token);
      const password = await client.genericGrantRequest(config, 'password', {
        username: 'bob',
        password: PASSWORD,
      });
      assert.ok(password.access_token);
      await client.tokenRevocation(config, refreshed.refresh_token!, {
        token_type_hint: 'refresh_token',
      });
      await assert.rejects(
        client.fetchProtectedResource(
          config,
          refreshed.access_token,
          new URL(`${world.server.url}/api/v4/user`),
          'GET',
        ),
        (error: unknown) => error instanceof client.WWWAuthenticateChallengeError,
      );
    });
  }

  it('client_secret_post is the default with a secret', async () => {
    const config = await client.discovery(
      new URL(world.server.url),
      world.app.uid,
      world.app.secret,
      undefined,
      {
        execute: [client.allowInsecureRequests],
        algorithm: 'oauth2',
      },
    );
    const tokens = await client.genericGrantRequest(config, 'password', {
      username: 'alice',
      password: PASSWORD,
      scope: 'read_user',
    });
    assert.equal(tokens.scope, 'read_user');
  });
});
