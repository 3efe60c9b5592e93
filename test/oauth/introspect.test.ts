import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INTROSPECTION_UNAUTHORIZED } from '../../src/oauth/revoke.js';
import { type OAuthWorld, basic, get, obtainTokens, post, startOAuthServer } from './support.js';

describe('POST /oauth/introspect (RFC 7662) and GET /oauth/token/info', () => {
  let world: OAuthWorld;
  before(async () => {
    world = await startOAuthServer();
  });
  after(() => world.close());
  const introspect = (form: Record<string, string>, app = world.app) =>
    post(world.server, '/oauth/introspect', form, { authorization: basic(app.uid, app.secret) });

  it('requires client authentication', async () => {
    const none = await post(world.server, '/oauth/introspect', { token: 'x' });
    assert.deepEqual(none.body, {
      error: 'invalid_request',
      error_description: INTROSPECTION_UNAUTHORIZED,
    });
    assert.equal(none.status, 400);
    const bad = await post(
      world.server,
      '/oauth/introspect',
      { token: 'x' },
      { authorization: basic(world.app.uid, 'no') },
    );
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error, 'invalid_client');
    const idOnly = await post(world.server, '/oauth/introspect', {
      token: 'x',
      client_id: world.app.uid,
    });
    assert.equal(idOnly.status, 401);
  });

  it('describes an active access token and refresh token of the calling client', async () => {
    const tokens = await obtainTokens(world);
    const now = Math.floor(world.server.clock.now() / 1000);
    const reply = await introspect({ token: tokens.access_token });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('cache-control'), 'no-store');
    assert.deepEqual(reply.body, {
      active: true,
      scope: 'api read_user',
      client_id: world.app.uid,
      token_type: 'Bearer',
      exp: now + 7200,
      iat: now,
      sub: String(world.alice.id),
    });
    const refresh = await introspect({
      token: tokens.refresh_token,
      token_type_hint: 'refresh_token',
    });
    assert.equal(refresh.body.active, true);
    assert.equal(refresh.body.exp, undefined);
  });

  it("is inactive for unknown, other clients', revoked and expired tokens", async () => {
    assert.deepEqual((await introspect({ token: 'nope' })).body, { active: false });
    const tokens = await obtainTokens(world);
    assert.deepEqual((await introspect({ token: tokens.access_token }, world.other)).body, {
      active: false,
    });
    world.server.clock.advance(7200_000);
    assert.deepEqual((await introspect({ token: tokens.access_token })).body, { active: false });
    await post(
      world.server,
      '/oauth/revoke',
      { token: tokens.refresh_token },
      { authorization: basic(world.app.uid, world.app.secret) },
    );
    assert.deepEqual((await introspect({ token: tokens.refresh_token })).body, { active: false });
  });

  it('token info answers in GitLab shape, with CORS *', async () => {
    const tokens = await obtainTokens(world);
    world.server.clock.advance(100_000);
    const reply = await get(world.server, '/oauth/token/info', {
      authorization: `Bearer ${tokens.access_token}`,
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(reply.body, {
      resource_owner_id: world.alice.id,
      scope: ['api', 'read_user'],
      expires_in: 7100,
      application: { uid: world.app.uid },
      created_at: Math.floor((world.server.clock.now() - 100_000) / 1000),
      scopes: ['api', 'read_user'],
      expires_in_seconds: 7100,
    });
    const query = await get(world.server, `/oauth/token/info?access_token=${tokens.access_token}`);
    assert.equal(query.status, 200);
  });

  it('token info: missing, unknown, expired → 401 invalid_token with a Bearer challenge', async () => {
    const tokens = await obtainTokens(world);
    world.server.clock.advance(7200_000);
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: 'Bearer nope' },
      { authorization: `Bearer ${tokens.access_token}` },
    ]) {
      const reply = await get(world.server, '/oauth/token/info', headers);
      assert.equal(reply.status, 401);
      assert.deepEqual(reply.body, {
        error: 'invalid_token',
        error_description: 'The access token is invalid',
      });
      assert.match(
        reply.headers.get('www-authenticate')!,
        /^Bearer realm="pulsegate", error="invalid_token"/,
      );
    }
  });
});
