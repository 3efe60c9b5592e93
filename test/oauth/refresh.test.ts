import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import {
  type OAuthWorld,
  apiUser,
  basic,
  obtainCode,
  obtainTokens,
  pkcePair,
  post,
  startOAuthServer,
} from './support.js';

for (const dialect of DIALECTS) {
  describe(`refresh_token grant (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect });
    });
    after(() => world.close());

    const refresh = (token: string, extra: Record<string, string> = {}, app = world.app) =>
      post(
        world.server,
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: token, ...extra },
        { authorization: basic(app.uid, app.secret) },
      );

    it('rotates immediately: new pair, old access token revoked, old refresh token dead', async () => {
      const first = await obtainTokens(world);
      const second = await refresh(first.refresh_token);
      assert.equal(second.status, 200);
      assert.notEqual(second.body.refresh_token, first.refresh_token);
      assert.equal(second.body.scope, first.scope);
      assert.equal(second.body.expires_in, 7200);
      const old = await apiUser(world.server, first.access_token);
      assert.equal(old.status, 401);
      assert.equal(
        old.body.error_description,
        'Token was revoked. You have to re-authorize from the user.',
      );
      assert.equal((await apiUser(world.server, second.body.access_token as string)).status, 200);
    });

    it('D2/B.4: replaying an old refresh token kills the whole family, newest pair included', async () => {
      const first = await obtainTokens(world);
      const second = await refresh(first.refresh_token);
      const third = await refresh(second.body.refresh_token as string);
      assert.equal(third.status, 200);
      const replay = await refresh(first.refresh_token);
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error, 'invalid_grant');
      assert.equal((await apiUser(world.server, third.body.access_token as string)).status, 401);
      assert.equal((await refresh(third.body.refresh_token as string)).body.error, 'invalid_grant');
    });

    it("B.4: another client's credentials → invalid_grant; no credentials → invalid_grant", async () => {
      const tokens = await obtainTokens(world);
      assert.equal(
        (await refresh(tokens.refresh_token, {}, world.other)).body.error,
        'invalid_grant',
      );
      const bare = await post(world.server, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
      });
      assert.equal(bare.body.error, 'invalid_grant');
      const wrong = await post(
        world.server,
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
        { authorization: basic(world.app.uid, 'wrong-secret') },
      );
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.error, 'invalid_client');
      assert.equal((await refresh(tokens.refresh_token)).status, 200, 'the token survived');
    });

    it('B.4: a wider scope is invalid_scope; narrower is allowed and the full scope can be restored', async () => {
      const tokens = await obtainTokens(world);
      const wide = await refresh(tokens.refresh_token, { scope: 'api read_user read_api' });
      assert.equal(wide.body.error, 'invalid_scope');
      const narrow = await refresh(tokens.refresh_token, { scope: 'read_user' });
      assert.equal(narrow.status, 200);
      assert.equal(narrow.body.scope, 'read_user');
      const restored = await refresh(narrow.body.refresh_token as string, {
        scope: 'api read_user',
      });
      assert.equal(restored.status, 200);
      assert.equal(restored.body.scope, 'api read_user');
    });

    it('two simultaneous refreshes: one 200, the other invalid_grant', async () => {
      const tokens = await obtainTokens(world);
      const replies = await Promise.all([
        refresh(tokens.refresh_token),
        refresh(tokens.refresh_token),
      ]);
      assert.deepEqual(replies.map((r) => r.status).sort(), [200, 400]);
    });

    it('the refresh token outlives its access token; the expired token is answered TOKEN_EXPIRED', async () => {
      const tokens = await obtainTokens(world);
      world.server.clock.advance(7200_000);
      const expired = await apiUser(world.server, tokens.access_token);
      assert.equal(expired.status, 401);
      assert.equal(
        expired.body.error_description,
        'Token is expired. You can either do re-authorization or token refresh.',
      );
      assert.equal((await refresh(tokens.refresh_token)).status, 200);
    });

    it('a public client gets a new refresh token on every refresh (client_id alone)', async () => {
      const { verifier, challenge } = pkcePair();
      const redirect = 'http://127.0.0.1:5000/callback';
      const location = await obtainCode(world, {
        client_id: world.publicApp.uid,
        redirect_uri: redirect,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const tokens = await post(world.server, '/oauth/token', {
        grant_type: 'authorization_code',
        client_id: world.publicApp.uid,
        code: location.searchParams.get('code')!,
        redirect_uri: redirect,
        code_verifier: verifier,
      });
      let current = tokens.body.refresh_token as string;
      for (let i = 0; i < 3; i++) {
        const next = await post(world.server, '/oauth/token', {
          grant_type: 'refresh_token',
          client_id: world.publicApp.uid,
          refresh_token: current,
        });
        assert.equal(next.status, 200);
        assert.notEqual(next.body.refresh_token, current);
        current = next.body.refresh_token as string;
      }
    });

    it('a missing refresh_token is invalid_request', async () => {
      const reply = await post(
        world.server,
        '/oauth/token',
        { grant_type: 'refresh_token' },
        { authorization: basic(world.app.uid, world.app.secret) },
      );
      assert.deepEqual(reply.body, {
        error: 'invalid_request',
        error_description: 'Missing required parameter: refresh_token.',
      });
    });
  });
}
