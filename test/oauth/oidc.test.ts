/**
 * OpenID Connect on the authorization-code flow, driven by openid-client 6 against the real
 * server: discovery, PKCE + nonce, ID token signature and claims, userinfo, refresh, tampering.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { DIALECTS } from '../helpers/server.js';
import { Fixtures } from '../helpers/fixtures.js';
import {
  type Browser,
  type OAuthWorld,
  REDIRECT,
  type RegisteredApp,
  apiUser,
  basic,
  csrfOf,
  get,
  obtainTokens,
  post,
  startOAuthServer,
  signedInBrowser,
} from './support.js';
import {
  authorize,
  decodeJwt,
  discover,
  exchange,
  registerOidcApp,
  useRealTime,
} from './oidc-support.js';

const atHash = (token: string) =>
  createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

for (const dialect of DIALECTS) {
  describe(`OpenID Connect code flow (${dialect})`, () => {
    let world: OAuthWorld;
    let app: RegisteredApp;
    let browser: Browser;
    let signedInAt: number;
    before(async () => {
      world = await startOAuthServer({ dialect });
      useRealTime(world);
      const f = new Fixtures(world.server.store);
      const group = await f.project('acme/tools', world.bob.id, 'private');
      await f.member(group.id, world.alice.id, 30);
      app = await registerOidcApp(world);
      signedInAt = world.server.clock.now();
      browser = await signedInBrowser(world);
    });
    after(() => world.close());

    it('discovery, code + PKCE + nonce, a verified ID token with GitLab claims, and userinfo', async () => {
      const config = await discover(world, app);
      const meta = config.serverMetadata();
      assert.equal(meta.jwks_uri, `${world.server.url}/oauth/discovery/keys`);
      assert.equal(meta.userinfo_endpoint, `${world.server.url}/oauth/userinfo`);
      const { callback, checks } = await authorize(config, browser);
      assert.equal(callback.searchParams.get('iss'), world.server.url);
      const tokens = await exchange(config, callback, checks);
      const claims = tokens.claims()!;
      assert.equal(claims.iss, world.server.url);
      assert.equal(claims.sub, String(world.alice.id));
      assert.equal(claims.aud, app.uid);
      assert.equal(claims.nonce, checks.nonce);
      assert.equal(claims.auth_time, Math.floor(signedInAt / 1000));
      assert.equal(claims.at_hash, atHash(tokens.access_token));
      assert.equal((claims.exp as number) - (claims.iat as number), 3600);
      assert.equal(claims.name, world.alice.name);
      assert.equal(claims.nickname, 'alice');
      assert.equal(claims.preferred_username, 'alice');
      assert.equal(claims.email, world.alice.email);
      assert.equal(claims.email_verified, false);
      assert.equal(claims.profile, `${world.server.url}/alice`);
      assert.match(String(claims.picture), /^https:\/\//);
      // Only groups: the personal namespace `alice` is not one.
      assert.deepEqual(claims.groups, ['acme']);
      assert.equal('website' in claims, false);
      const { header } = decodeJwt(tokens.id_token!);
      assert.equal(header.alg, 'RS256');
      const jwks = (await get(world.server, '/oauth/discovery/keys')).body as {
        keys: Array<Record<string, unknown>>;
      };
      assert.ok(jwks.keys.some((k) => k.kid === header.kid && k.alg === 'RS256'));

      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      const { sub, name, nickname, preferred_username, email, email_verified, groups } = claims;
      assert.deepEqual(
        { sub, name, nickname, preferred_username, email, email_verified, groups },
        {
          sub: info.sub,
          name: info.name,
          nickname: info.nickname,
          preferred_username: info.preferred_username,
          email: info.email,
          email_verified: info.email_verified,
          groups: info.groups,
        },
      );
      // An identity token is not an API token.
      assert.equal((await apiUser(world.server, tokens.access_token)).status, 403);
    });

    it('openid-client rejects a tampered ID token (payload or signature)', async () => {
      const config = await discover(world, app);
      const tamper = (jwt: string, how: 'payload' | 'signature') => {
        const [h, p, s] = jwt.split('.') as [string, string, string];
        if (how === 'signature') {
          const sig = Buffer.from(s, 'base64url');
          sig[0] = sig[0]! ^ 1;
          return `${h}.${p}.${sig.toString('base64url')}`;
        }
        const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<
          string,
          unknown
        >;
        payload.sub = String(world.bob.id);
        return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
      };
      for (const how of ['payload', 'signature'] as const) {
        config[client.customFetch] = async (url, options) => {
          const res = await fetch(url, options as RequestInit);
          if (!url.endsWith('/oauth/token')) return res;
          const body = (await res.json()) as Record<string, string>;
          body.id_token = tamper(body.id_token!, how);
          return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
        };
        const { callback, checks } = await authorize(config, browser);
        await assert.rejects(
          exchange(config, callback, checks),
          (e: Error) => /signature/i.test(`${e.message} ${(e.cause as Error)?.message}`),
          how,
        );
      }
    });

    it('a wrong nonce is caught by the client; no nonce sent means none in the token', async () => {
      const config = await discover(world, app);
      const { callback, checks } = await authorize(config, browser);
      await assert.rejects(
        exchange(config, callback, { ...checks, nonce: 'another-nonce' }),
        (e: Error) => /"nonce" claim/.test((e.cause as Error).message),
      );
      const bare = await authorize(config, browser, 'openid', { nonce: '' });
      const reply = await post(
        world.server,
        '/oauth/token',
        {
          grant_type: 'authorization_code',
          code: bare.callback.searchParams.get('code')!,
          redirect_uri: REDIRECT,
          code_verifier: bare.checks.verifier,
        },
        { authorization: basic(app.uid, app.secret) },
      );
      assert.equal(reply.status, 200, reply.text);
      assert.equal('nonce' in decodeJwt(reply.body.id_token as string).payload, false);
    });

    it('ES256 for an application registered for it', async () => {
      const es = await registerOidcApp(world, { name: 'EC App', alg: 'ES256' });
      const config = await discover(world, es, { id_token_signed_response_alg: 'ES256' });
      const { callback, checks } = await authorize(config, browser);
      const tokens = await exchange(config, callback, checks);
      assert.equal(decodeJwt(tokens.id_token!).header.alg, 'ES256');
      assert.equal(tokens.claims()!.aud, es.uid);
      // The default stays RS256, which a client expecting ES256 refuses.
      const expectingEs = await discover(world, app, { id_token_signed_response_alg: 'ES256' });
      const rs = await authorize(expectingEs, browser);
      await assert.rejects(exchange(expectingEs, rs.callback, rs.checks), (e: Error) =>
        /"alg" header/.test((e.cause as Error).message),
      );
    });

    it('an application chooses its ID token algorithm when registered (RS256 or ES256 only)', async () => {
      await assert.rejects(registerOidcApp(world, { alg: 'HS256' }), /ID token algorithm/);
      const form = await browser.fetch('/profile/applications');
      assert.match(form.text, /<option\s+value="ES256"/);
      const created = await browser.fetch('/profile/applications', {
        form: new URLSearchParams([
          ['authenticity_token', csrfOf(form.text)],
          ['name', 'Form EC App'],
          ['redirect_uri', REDIRECT],
          ['scopes', 'openid'],
          ['confidential', '1'],
          ['id_token_signed_response_alg', 'ES256'],
        ]),
      });
      assert.equal(created.status, 201);
      assert.match(created.text, /<dd id="id-token-alg">ES256<\/dd>/);
      const uid = /id="application-id">([^<]+)</.exec(created.text)![1]!;
      const row = await world.server.services.oauth.applications.byUid(uid);
      assert.equal(row?.id_token_signed_response_alg, 'ES256');
    });

    it('scopes decide the claims, in the ID token and at userinfo', async () => {
      const config = await discover(world, app);
      for (const [scope, present, absent] of [
        ['openid', ['sub'], ['name', 'email', 'groups']],
        ['openid email', ['sub', 'email', 'email_verified'], ['name', 'preferred_username']],
        ['openid profile', ['name', 'nickname', 'groups', 'picture'], ['email']],
      ] as const) {
        const { callback, checks } = await authorize(config, browser, scope);
        const tokens = await exchange(config, callback, checks);
        const info = await client.fetchUserInfo(
          config,
          tokens.access_token,
          String(world.alice.id),
        );
        for (const claims of [tokens.claims()!, info]) {
          for (const name of present) assert.ok(name in claims, `${scope}: ${name}`);
          for (const name of absent) assert.ok(!(name in claims), `${scope}: no ${name}`);
        }
      }
    });

    it('refresh keeps working and returns a new ID token (same sub and auth_time, no nonce)', async () => {
      const config = await discover(world, app);
      const { callback, checks } = await authorize(config, browser);
      const first = await exchange(config, callback, checks);
      const refreshed = await client.refreshTokenGrant(config, first.refresh_token!);
      assert.notEqual(refreshed.access_token, first.access_token);
      const claims = refreshed.claims()!;
      assert.equal(claims.sub, first.claims()!.sub);
      assert.equal(claims.auth_time, first.claims()!.auth_time);
      assert.equal(claims.nonce, undefined);
      assert.equal(claims.at_hash, atHash(refreshed.access_token));
      // Narrowed without openid: no ID token.
      const narrow = await client.refreshTokenGrant(config, refreshed.refresh_token!, {
        scope: 'profile',
      });
      assert.equal(narrow.id_token, undefined);
    });

    it('tokens without openid get no ID token (the GitLab token response is unchanged)', async () => {
      const tokens = await obtainTokens(world);
      assert.equal('id_token' in tokens, false);
    });

    it('userinfo answers RFC 6750 errors; GET and POST; never from the query string', async () => {
      const config = await discover(world, app);
      const { callback, checks } = await authorize(config, browser, 'openid profile');
      const tokens = await exchange(config, callback, checks);
      const bearer = { authorization: `Bearer ${tokens.access_token}` };

      const viaPost = await post(world.server, '/oauth/userinfo', {
        access_token: tokens.access_token,
      });
      assert.equal(viaPost.status, 200);
      assert.equal(viaPost.body.sub, String(world.alice.id));
      assert.equal(viaPost.headers.get('cache-control'), 'no-store');
      const viaGet = await get(world.server, '/oauth/userinfo', bearer);
      assert.equal(viaGet.status, 200);
      assert.equal(viaGet.headers.get('access-control-allow-origin'), '*');

      const none = await get(world.server, `/oauth/userinfo?access_token=${tokens.access_token}`);
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="pulsegate"');

      const both = await post(
        world.server,
        '/oauth/userinfo',
        { access_token: tokens.access_token },
        bearer,
      );
      assert.equal(both.status, 400);

      const garbage = await get(world.server, '/oauth/userinfo', { authorization: 'Bearer nope' });
      assert.equal(garbage.status, 401);
      assert.match(garbage.headers.get('www-authenticate')!, /error="invalid_token"/);

      const apiOnly = await obtainTokens(world);
      const scoped = await get(world.server, '/oauth/userinfo', {
        authorization: `Bearer ${apiOnly.access_token}`,
      });
      assert.equal(scoped.status, 403);
      assert.equal(scoped.body.error, 'insufficient_scope');
      assert.match(
        scoped.headers.get('www-authenticate')!,
        /error="insufficient_scope", scope="openid"/,
      );

      const revoke = await post(
        world.server,
        '/oauth/revoke',
        { token: tokens.access_token },
        { authorization: basic(app.uid, app.secret) },
      );
      assert.equal(revoke.status, 200);
      const revoked = await get(world.server, '/oauth/userinfo', bearer);
      assert.equal(revoked.status, 401);
      assert.equal(revoked.body.error, 'invalid_token');
    });

    it('userinfo refuses an expired token', async () => {
      const config = await discover(world, app);
      const { callback, checks } = await authorize(config, browser, 'openid');
      const tokens = await exchange(config, callback, checks);
      world.server.clock.advance(7200 * 1000);
      try {
        const expired = await get(world.server, '/oauth/userinfo', {
          authorization: `Bearer ${tokens.access_token}`,
        });
        assert.equal(expired.status, 401);
        assert.match(String(expired.body.error_description), /expired/);
      } finally {
        useRealTime(world);
      }
    });

    it('the consent page says what openid, profile and email reveal', async () => {
      const page = await browser.fetch(
        `/oauth/authorize?${new URLSearchParams({
          client_id: app.uid,
          redirect_uri: REDIRECT,
          response_type: 'code',
          scope: 'openid profile email',
        })}`,
      );
      assert.equal(page.status, 200);
      assert.match(page.text, /<code>openid<\/code> — Sign you in to the application/);
      assert.match(page.text, /<code>profile<\/code> — See your name, username/);
      assert.match(page.text, /<code>email<\/code> — See your e-mail address/);
    });
  });
}

describe('OpenID Connect discovery', () => {
  let world: OAuthWorld;
  before(async () => {
    world = await startOAuthServer();
  });
  after(() => world.close());

  it('is a truthful OIDC discovery document, also at the RFC 8414 path', async () => {
    const base = world.server.url;
    const doc = await get(world.server, '/.well-known/openid-configuration');
    assert.equal(doc.status, 200);
    assert.deepEqual(
      (await get(world.server, '/.well-known/oauth-authorization-server')).body,
      doc.body,
    );
    const meta = doc.body;
    assert.equal(meta.issuer, base);
    assert.equal(meta.userinfo_endpoint, `${base}/oauth/userinfo`);
    assert.equal(meta.jwks_uri, `${base}/oauth/discovery/keys`);
    assert.equal(meta.device_authorization_endpoint, `${base}/oauth/authorize_device`);
    assert.deepEqual(meta.subject_types_supported, ['public']);
    assert.deepEqual(meta.id_token_signing_alg_values_supported, ['RS256', 'ES256']);
    assert.deepEqual(meta.response_types_supported, ['code']);
    for (const scope of ['openid', 'profile', 'email']) {
      assert.ok((meta.scopes_supported as string[]).includes(scope), scope);
    }
    for (const claim of ['sub', 'auth_time', 'nonce', 'email', 'groups', 'preferred_username']) {
      assert.ok((meta.claims_supported as string[]).includes(claim), claim);
    }
    assert.equal(meta.request_uri_parameter_supported, false);
    assert.equal(meta.request_parameter_supported, false);
    assert.ok(
      (meta.grant_types_supported as string[]).includes(
        'urn:ietf:params:oauth:grant-type:device_code',
      ),
    );
    // Every endpoint listed answers.
    const keys = await get(world.server, '/oauth/discovery/keys');
    assert.equal(keys.status, 200);
    assert.equal(keys.headers.get('content-type'), 'application/json');
    const jwks = keys.body.keys as Array<Record<string, unknown>>;
    assert.deepEqual(jwks.map((k) => k.alg).sort(), ['ES256', 'RS256']);
    for (const key of jwks) {
      assert.equal(key.use, 'sig');
      assert.match(String(key.kid), /^[A-Za-z0-9_-]{43}$/);
      // Public halves only.
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(key[secret], undefined);
    }
    assert.equal((await get(world.server, '/oauth/userinfo')).status, 401);
    assert.equal((await post(world.server, '/oauth/authorize_device', {})).status, 401);
    const issuer = new URL(base);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, {
        algorithm: 'oidc',
        [oauth.allowInsecureRequests]: true,
      }),
    );
    assert.equal(as.jwks_uri, `${base}/oauth/discovery/keys`);
  });
});
