import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import {
  type OAuthWorld,
  PASSWORD,
  apiUser,
  basic,
  obtainTokens,
  post,
  startOAuthServer,
} from './support.js';

for (const dialect of DIALECTS) {
  describe(`POST /oauth/revoke (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect });
    });
    after(() => world.close());
    const revoke = (form: Record<string, string>, app = world.app) =>
      post(world.server, '/oauth/revoke', form, { authorization: basic(app.uid, app.secret) });

    it('an unknown token → exactly 200 {}, uncached, CORS allowed', async () => {
      const reply = await revoke({ token: 'unknown' });
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body, {});
      assert.equal(reply.headers.get('cache-control'), 'no-store');
      assert.equal(reply.headers.get('pragma'), 'no-cache');
      assert.equal(reply.headers.get('access-control-allow-origin'), '*');
    });

    it('revoking the refresh token kills its access token', async () => {
      const tokens = await obtainTokens(world);
      assert.equal(
        (await revoke({ token: tokens.refresh_token, token_type_hint: 'refresh_token' })).status,
        200,
      );
      assert.equal((await apiUser(world.server, tokens.access_token)).status, 401);
    });

    it('revoking the access token kills it (and its refresh token)', async () => {
      const tokens = await obtainTokens(world);
      assert.equal((await revoke({ token: tokens.access_token })).status, 200);
      const api = await apiUser(world.server, tokens.access_token);
      assert.equal(
        api.body.error_description,
        'Token was revoked. You have to re-authorize from the user.',
      );
      const refresh = await post(
        world.server,
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
        { authorization: basic(world.app.uid, world.app.secret) },
      );
      assert.equal(refresh.body.error, 'invalid_grant');
    });

    it("D12: client B cannot revoke client A's token: 403 unauthorized_client, token survives", async () => {
      const tokens = await obtainTokens(world);
      const reply = await revoke({ token: tokens.access_token }, world.other);
      assert.equal(reply.status, 403);
      assert.deepEqual(reply.body, {
        error: 'unauthorized_client',
        error_description: 'You are not authorized to revoke this token',
      });
      const anonymous = await post(world.server, '/oauth/revoke', { token: tokens.access_token });
      assert.equal(anonymous.status, 403);
      assert.equal((await apiUser(world.server, tokens.access_token)).status, 200);
    });

    it('a wrong client secret → 401 invalid_client with a Basic challenge', async () => {
      const reply = await post(
        world.server,
        '/oauth/revoke',
        { token: 'x' },
        { authorization: basic(world.app.uid, 'nope') },
      );
      assert.equal(reply.status, 401);
      assert.match(reply.headers.get('www-authenticate')!, /^Basic realm="pulsegate"/);
    });

    it('a token sent only in the query string is not read (and not revoked)', async () => {
      const tokens = await obtainTokens(world);
      const res = await fetch(`${world.server.url}/oauth/revoke?token=${tokens.access_token}`, {
        method: 'POST',
        headers: {
          authorization: basic(world.app.uid, world.app.secret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: '',
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: string }).error, 'invalid_request');
      assert.equal((await apiUser(world.server, tokens.access_token)).status, 200);
    });

    it('a client-less password-grant token is revocable by its holder', async () => {
      const grant = await post(world.server, '/oauth/token', {
        grant_type: 'password',
        username: 'bob',
        password: PASSWORD,
      });
      const token = grant.body.access_token as string;
      assert.equal((await post(world.server, '/oauth/revoke', { token })).status, 200);
      assert.equal((await apiUser(world.server, token)).status, 401);
    });

    it('GET is 405', async () => {
      const res = await fetch(`${world.server.url}/oauth/revoke`);
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
    });
  });
}
