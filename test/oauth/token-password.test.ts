import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAUTH_DESCRIPTIONS } from '../../src/domain/oauth.js';
import { THROTTLE_POLICIES } from '../../src/services/accounts/throttle.js';
import { DIALECTS } from '../helpers/server.js';
import {
  type OAuthWorld,
  PASSWORD,
  apiUser,
  basic,
  get,
  post,
  startOAuthServer,
  addUser,
} from './support.js';

const invalidGrant = {
  error: 'invalid_grant',
  error_description: OAUTH_DESCRIPTIONS.invalid_grant,
};

for (const dialect of DIALECTS) {
  describe(`password grant (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect });
    });
    after(() => world.close());
    const grant = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      post(world.server, '/oauth/token', { grant_type: 'password', ...form }, headers);

    it('works without client credentials (D1), default scope api, no refresh_token', async () => {
      const reply = await grant({ username: 'alice', password: PASSWORD });
      assert.equal(reply.status, 200);
      assert.equal(reply.body.scope, 'api');
      assert.equal(reply.body.refresh_token, undefined);
      assert.equal(reply.body.token_type, 'Bearer');
      assert.equal(reply.headers.get('cache-control'), 'no-store');
      assert.equal(reply.headers.get('pragma'), 'no-cache');
      assert.equal(
        (await apiUser(world.server, reply.body.access_token as string)).body.username,
        'alice',
      );
    });

    it('accepts a JSON body and an e-mail address as username', async () => {
      const res = await fetch(`${world.server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'password',
          username: 'alice@example.com',
          password: PASSWORD,
        }),
      });
      assert.equal(res.status, 200);
    });

    it('with client credentials, scopes are capped to the application', async () => {
      const auth = { authorization: basic(world.app.uid, world.app.secret) };
      const ok = await grant({ username: 'bob', password: PASSWORD, scope: 'read_user' }, auth);
      assert.equal(ok.status, 200);
      assert.equal(ok.body.scope, 'read_user');
      const wide = await grant({ username: 'bob', password: PASSWORD, scope: 'read_api' }, auth);
      assert.deepEqual(wide.body, {
        error: 'invalid_scope',
        error_description: OAUTH_DESCRIPTIONS.invalid_scope,
      });
      const badClient = await grant(
        { username: 'bob', password: PASSWORD },
        { authorization: basic(world.app.uid, 'wrong') },
      );
      assert.equal(badClient.status, 401);
      assert.equal(badClient.body.error, 'invalid_client');
    });

    it('wrong password, unknown user and missing fields answer identically', async () => {
      const wrong = await grant({ username: 'bob', password: 'nope' });
      const unknown = await grant({ username: 'nobody', password: 'nope' });
      const missing = await grant({ username: 'bob' });
      for (const reply of [wrong, unknown, missing]) {
        assert.equal(reply.status, 400);
        assert.deepEqual(reply.body, invalidGrant);
      }
      assert.equal(wrong.text, unknown.text);
    });

    it('B.13: a 2FA user is refused before the password is checked; the counter does not move', async () => {
      await world.server.store.users.update(world.bob.id, {
        two_factor_enabled: 1,
        otp_secret: 'JBSWY3DPEHPK3PXP',
      });
      const { throttle } = world.server.services.oauth;
      const before = await throttle.failures('account', `user:${world.bob.id}`);
      const reply = await grant({ username: 'bob', password: PASSWORD });
      assert.deepEqual(reply.body, invalidGrant);
      const wrong = await grant({ username: 'bob', password: 'wrong' });
      assert.deepEqual(wrong.body, invalidGrant);
      assert.equal(await throttle.failures('account', `user:${world.bob.id}`), before);
      await world.server.store.users.update(world.bob.id, {
        two_factor_enabled: 0,
        otp_secret: null,
      });
    });

    it('B.12: after 5 failures even the right password gets 429 with an integer Retry-After, until the window ends', async () => {
      const { limit, windowMs } = THROTTLE_POLICIES.account;
      await addUser(world, 'carol');
      for (let i = 0; i < limit; i++) {
        assert.equal((await grant({ username: 'carol', password: `wrong${i}` })).status, 400);
      }
      const locked = await grant({ username: 'carol', password: PASSWORD });
      assert.equal(locked.status, 429);
      assert.match(locked.headers.get('retry-after')!, /^\d+$/);
      assert.ok(Number(locked.headers.get('retry-after')) <= windowMs / 1000);
      assert.equal(typeof locked.body.error, 'string');
      assert.equal(locked.headers.get('cache-control'), 'no-store');
      world.server.clock.advance(windowMs);
      assert.equal((await grant({ username: 'carol', password: PASSWORD })).status, 200);
    });

    it('B.12: a success resets the account counter', async () => {
      const { throttle } = world.server.services.oauth;
      await grant({ username: 'alice', password: 'wrong' });
      assert.equal(await throttle.failures('account', `user:${world.alice.id}`), 1);
      await grant({ username: 'alice', password: PASSWORD });
      assert.equal(await throttle.failures('account', `user:${world.alice.id}`), 0);
    });

    it('B.12: the per-address counter trips when usernames vary', async () => {
      world.server.clock.advance(THROTTLE_POLICIES.address.windowMs);
      let status = 0;
      for (let i = 0; i <= THROTTLE_POLICIES.address.limit; i++) {
        status = (await grant({ username: `user${i}`, password: 'x' })).status;
      }
      assert.equal(status, 429);
      world.server.clock.advance(THROTTLE_POLICIES.address.windowMs);
    });
  });
}

describe('password grant configuration', () => {
  it('without client credentials is refused when passwordGrantWithoutClient is off', async () => {
    const world = await startOAuthServer({ config: { passwordGrantWithoutClient: false } });
    try {
      const reply = await post(world.server, '/oauth/token', {
        grant_type: 'password',
        username: 'alice',
        password: PASSWORD,
      });
      assert.equal(reply.status, 401);
      assert.equal(reply.body.error, 'invalid_client');
      const withClient = await post(
        world.server,
        '/oauth/token',
        { grant_type: 'password', username: 'alice', password: PASSWORD },
        { authorization: basic(world.app.uid, world.app.secret) },
      );
      assert.equal(withClient.status, 200);
    } finally {
      await world.close();
    }
  });

  it('can be disabled entirely (B.13), and then is not advertised', async () => {
    const world = await startOAuthServer({ config: { passwordGrant: false } });
    try {
      const reply = await post(world.server, '/oauth/token', {
        grant_type: 'password',
        username: 'alice',
        password: PASSWORD,
      });
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error, 'unsupported_grant_type');
      const meta = await get(world.server, '/.well-known/oauth-authorization-server');
      assert.deepEqual(meta.body.grant_types_supported, [
        'authorization_code',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:device_code',
      ]);
    } finally {
      await world.close();
    }
  });
});
