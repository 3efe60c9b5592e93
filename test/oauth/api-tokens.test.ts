import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import { type OAuthWorld, apiUser, get, obtainTokens, startOAuthServer } from './support.js';

for (const dialect of DIALECTS) {
  describe(`OAuth tokens on /api/v4 (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect });
    });
    after(() => world.close());

    it('works as Bearer header and ?access_token=, the latter uncacheable', async () => {
      const { access_token } = await obtainTokens(world);
      const header = await apiUser(world.server, access_token);
      assert.equal(header.status, 200);
      assert.equal(header.headers.get('content-type'), 'application/json');
      const query = await get(world.server, `/api/v4/events?access_token=${access_token}`);
      assert.equal(query.status, 200);
      assert.match(query.headers.get('cache-control')!, /no-store|private/);
      assert.doesNotMatch(query.headers.get('link') ?? '', /access_token/);
    });

    it('is not accepted as PRIVATE-TOKEN (GitLab reads OAuth tokens as Bearer only)', async () => {
      const { access_token } = await obtainTokens(world);
      const reply = await get(world.server, '/api/v4/user', { 'private-token': access_token });
      assert.equal(reply.status, 401);
    });

    it('B.22: expired → 401 invalid_token with a Bearer challenge', async () => {
      const { access_token } = await obtainTokens(world);
      world.server.clock.advance(7200_000);
      const reply = await apiUser(world.server, access_token);
      assert.equal(reply.status, 401);
      assert.deepEqual(reply.body, {
        error: 'invalid_token',
        error_description: 'Token is expired. You can either do re-authorization or token refresh.',
      });
      assert.match(
        reply.headers.get('www-authenticate')!,
        /^Bearer realm="Protected by OAuth 2.0", error="invalid_token"/,
      );
    });

    it('B.22: 1 s before expiry it still works', async () => {
      const { access_token } = await obtainTokens(world);
      world.server.clock.advance(7199_000);
      assert.equal((await apiUser(world.server, access_token)).status, 200);
    });

    it('B.22: too little scope → 403 insufficient_scope with an RFC 6750 §3 Bearer challenge', async () => {
      const apps = world.server.services.oauth.applications;
      const { app, secret } = await apps.create(world.alice.id, {
        name: 'Reader',
        redirectUris: 'https://app.example/cb',
        scopes: ['read_user'],
        confidential: true,
      });
      const tokens = await obtainTokens(world, { id: app.id, uid: app.uid, secret });
      const reply = await get(world.server, '/api/v4/projects/1/events', {
        authorization: `Bearer ${tokens.access_token}`,
      });
      assert.equal(reply.status, 403);
      assert.equal(reply.body.error, 'insufficient_scope');
      assert.equal(
        reply.headers.get('www-authenticate'),
        'Bearer realm="Protected by OAuth 2.0", error="insufficient_scope", error_description="The request requires higher privileges than provided by the access token.", scope="api read_api"',
      );
    });

    it('D13: no credentials or a garbage token → {"message":"401 Unauthorized"} without a challenge', async () => {
      for (const headers of <Record<string, string>[]>[
        {},
        { authorization: 'Bearer pgoa-garbage' },
        { authorization: 'Bearer garbage' },
      ]) {
        const reply = await get(world.server, '/api/v4/user', headers);
        assert.equal(reply.status, 401);
        assert.deepEqual(reply.body, { message: '401 Unauthorized' });
        assert.equal(reply.headers.get('www-authenticate'), null);
      }
    });

    it('a personal access token still works as Bearer', async () => {
      const { token } = await world.server.services.oauth.accounts.createToken(world.alice.id, {
        name: 'cli',
        scopes: ['read_user'],
        expiresAt: '',
      });
      assert.equal((await apiUser(world.server, token)).status, 200);
    });
  });
}
