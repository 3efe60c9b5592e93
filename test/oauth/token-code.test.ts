import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAUTH_DESCRIPTIONS } from '../../src/domain/oauth.js';
import { DIALECTS } from '../helpers/server.js';
import {
  type OAuthWorld,
  REDIRECT,
  apiUser,
  basic,
  obtainCode,
  obtainTokens,
  post,
  startOAuthServer,
} from './support.js';

for (const dialect of DIALECTS) {
  describe(`authorization_code grant (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect });
    });
    after(() => world.close());

    const exchange = (code: string, extra: Record<string, string> = {}, auth = world.app) =>
      post(
        world.server,
        '/oauth/token',
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...extra },
        { authorization: basic(auth.uid, auth.secret) },
      );

    it('exchanges a code for a GitLab-shaped token response, never cached', async () => {
      const location = await obtainCode(world);
      const reply = await exchange(location.searchParams.get('code')!);
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('cache-control'), 'no-store');
      assert.equal(reply.headers.get('pragma'), 'no-cache');
      assert.equal(reply.headers.get('content-type'), 'application/json');
      assert.deepEqual(Object.keys(reply.body).sort(), [
        'access_token',
        'created_at',
        'expires_in',
        'refresh_token',
        'scope',
        'token_type',
      ]);
      assert.equal(reply.body.token_type, 'Bearer');
      assert.equal(reply.body.expires_in, 7200);
      assert.equal(reply.body.scope, 'api read_user');
      assert.equal(reply.body.created_at, Math.floor(world.server.clock.now() / 1000));
      const me = await apiUser(world.server, reply.body.access_token as string);
      assert.equal(me.status, 200);
      assert.equal(me.body.username, 'alice');
    });

    it('B.2: a replayed code is invalid_grant and kills the tokens issued from it', async () => {
      const location = await obtainCode(world);
      const code = location.searchParams.get('code')!;
      const first = await exchange(code);
      assert.equal(first.status, 200);
      const second = await exchange(code);
      assert.equal(second.status, 400);
      assert.deepEqual(second.body, {
        error: 'invalid_grant',
        error_description: OAUTH_DESCRIPTIONS.invalid_grant,
      });
      assert.equal(second.headers.get('cache-control'), 'no-store');
      assert.equal(second.headers.get('www-authenticate'), null, 'D10: no challenge on 400');
      assert.equal((await apiUser(world.server, first.body.access_token as string)).status, 401);
      const refreshed = await post(
        world.server,
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string },
        { authorization: basic(world.app.uid, world.app.secret) },
      );
      assert.equal(refreshed.body.error, 'invalid_grant');
    });

    it('B.2: ten parallel exchanges of one code yield exactly one token', async () => {
      const location = await obtainCode(world);
      const code = location.searchParams.get('code')!;
      const replies = await Promise.all(Array.from({ length: 10 }, () => exchange(code)));
      const statuses = replies.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
      for (const r of replies.filter((r) => r.status === 400)) {
        assert.equal(r.body.error, 'invalid_grant');
      }
    });

    it('B.2: a code older than ten minutes is invalid_grant', async () => {
      const location = await obtainCode(world);
      world.server.clock.advance(600_000);
      const reply = await exchange(location.searchParams.get('code')!);
      assert.equal(reply.body.error, 'invalid_grant');
    });

    it('B.2: a code just under ten minutes old still works', async () => {
      const location = await obtainCode(world);
      world.server.clock.advance(599_000);
      assert.equal((await exchange(location.searchParams.get('code')!)).status, 200);
    });

    it("B.2: another client's credentials → invalid_grant, and the code survives", async () => {
      const location = await obtainCode(world);
      const code = location.searchParams.get('code')!;
      const stolen = await exchange(code, {}, world.other);
      assert.equal(stolen.status, 400);
      assert.equal(stolen.body.error, 'invalid_grant');
      assert.equal((await exchange(code)).status, 200);
    });

    it('B.2: a different or missing redirect_uri fails', async () => {
      const location = await obtainCode(world);
      const code = location.searchParams.get('code')!;
      const other = await exchange(code, { redirect_uri: 'https://app.example/cb2' });
      assert.equal(other.body.error, 'invalid_grant');
      const missing = await post(
        world.server,
        '/oauth/token',
        { grant_type: 'authorization_code', code },
        { authorization: basic(world.app.uid, world.app.secret) },
      );
      assert.deepEqual(missing.body, {
        error: 'invalid_request',
        error_description: 'Missing required parameter: redirect_uri.',
      });
    });

    it('a missing code and an unknown code are told apart', async () => {
      const missing = await post(
        world.server,
        '/oauth/token',
        { grant_type: 'authorization_code', redirect_uri: REDIRECT },
        { authorization: basic(world.app.uid, world.app.secret) },
      );
      assert.equal(missing.body.error_description, 'Missing required parameter: code.');
      assert.equal((await exchange('not-a-code')).body.error, 'invalid_grant');
    });

    it('the token carries only the approved (narrower) scope', async () => {
      const location = await obtainCode(world, { scope: 'read_user' });
      const reply = await exchange(location.searchParams.get('code')!);
      assert.equal(reply.body.scope, 'read_user');
      const projects = await fetch(`${world.server.url}/api/v4/projects/1/events`, {
        headers: { authorization: `Bearer ${reply.body.access_token as string}` },
      });
      assert.equal(projects.status, 403);
      assert.equal(((await projects.json()) as { error: string }).error, 'insufficient_scope');
    });

    it('obtainTokens helper round-trip', async () => {
      const tokens = await obtainTokens(world);
      assert.match(tokens.access_token, /^pgoa-[A-Za-z0-9_-]{43}$/);
      assert.match(tokens.refresh_token, /^pgor-[A-Za-z0-9_-]{43}$/);
    });
  });
}
