/**
 * Personal access tokens on the API: every place a token is read, the RFC 6750 conflict, unknown,
 * expired, revoked and blocked, scope enforcement per endpoint, `last_used_at` granularity and
 * `Cache-Control: no-store` when a token travels in the URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { digest } from '../../src/domain/secrets.js';
import { Fixtures } from '../helpers/fixtures.js';
import { call, get, ids } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const UNAUTHORIZED = '{"message":"401 Unauthorized"}';
const EXPIRED = 'Token is expired. You can either do re-authorization or token refresh.';
const REVOKED = 'Token was revoked. You have to re-authorize from the user.';
const SCOPE_DESCRIPTION =
  'The request requires higher privileges than provided by the access token.';

for (const dialect of DIALECTS) {
  describe(`tokens on the API (${dialect})`, () => {
    let server: TestServer;
    let projectId: number;
    let privateProjectId: number;
    let eventIds: number[];
    const t: Record<string, string> = {};

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          const bob = await f.user('bob', { state: 'blocked' });
          const project = await f.project('acme/app', alice.id, 'public');
          const secret = await f.project('acme/secret', alice.id, 'private');
          await f.member(secret.id, alice.id, 50);
          projectId = project.id;
          privateProjectId = secret.id;
          eventIds = [];
          for (const [i, p] of [project.id, secret.id].entries()) {
            eventIds.unshift(
              (
                await f.event({
                  projectId: p,
                  authorId: alice.id,
                  action: 'joined',
                  createdAt: Date.UTC(2026, 0, 2 + i),
                })
              ).id,
            );
          }
          t.api = await f.token(alice.id, ['api']);
          t.readApi = await f.token(alice.id, ['read_api']);
          t.readUser = await f.token(alice.id, ['read_user']);
          t.readRepository = await f.token(alice.id, ['read_repository']);
          // The test clock reads 2026-01-15T12:00Z: expired the day it expires, valid the day before.
          t.expired = await f.token(alice.id, ['api'], { expiresAt: '2026-01-15' });
          t.expiresTomorrow = await f.token(alice.id, ['api'], { expiresAt: '2026-01-16' });
          t.revoked = await f.token(alice.id, ['api'], { revoked: true });
          t.revokedExpired = await f.token(alice.id, ['api'], {
            revoked: true,
            expiresAt: '2025-01-01',
          });
          t.blocked = await f.token(bob.id, ['api']);
          t.touch = await f.token(alice.id, ['api']);
        },
      });
    });
    after(() => server.close());

    const mine = `/api/v4/events`;

    it('a PAT works in PRIVATE-TOKEN, Bearer, ?private_token and ?access_token', async () => {
      const variants: Array<[string, Record<string, string>]> = [
        [mine, { 'PRIVATE-TOKEN': t.api! }],
        [mine, { 'private-token': t.api! }],
        [mine, { Authorization: `Bearer ${t.api}` }],
        [mine, { Authorization: `bearer ${t.api}` }],
        [`${mine}?private_token=${t.api}`, {}],
        [`${mine}?access_token=${t.api}`, {}],
      ];
      for (const [path, headers] of variants) {
        const res = await call(server.url, path, { headers });
        assert.equal(res.status, 200, JSON.stringify(headers) + path.slice(0, 30));
        assert.deepEqual(ids(res.body), eventIds);
      }
    });

    it('a token in the URL makes the response uncacheable, success or failure', async () => {
      for (const param of ['private_token', 'access_token']) {
        const ok = await call(server.url, `${mine}?${param}=${t.api}`);
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get('cache-control'), 'no-store');
        const bad = await call(server.url, `${mine}?${param}=glpat-unknown`);
        assert.equal(bad.status, 401);
        assert.equal(bad.headers.get('cache-control'), 'no-store');
      }
      const header = await get(server.url, mine, t.api);
      assert.notEqual(header.headers.get('cache-control'), 'no-store');
    });

    it('Bearer header and access_token together are 400 invalid_request', async () => {
      const res = await call(server.url, `${mine}?access_token=${t.api}`, {
        headers: { Authorization: `Bearer ${t.api}` },
      });
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(
        res.text,
        JSON.stringify({
          error: 'invalid_request',
          error_description: 'Both Authorization header and payload includes access token.',
        }),
      );
    });

    it('an unknown token is 401 on every endpoint, public ones included', async () => {
      for (const path of [
        mine,
        '/api/v4/users/alice/events',
        `/api/v4/projects/${projectId}/events`,
        `/api/v4/${projectId}/events`,
        '/api/v4/user',
        '/api/v4/version',
      ]) {
        const variants: Array<Record<string, string>> = [
          { 'PRIVATE-TOKEN': 'glpat-doesnotexist' },
          { Authorization: 'Bearer not-a-token' },
        ];
        for (const headers of variants) {
          const res = await call(server.url, path, { headers });
          assert.equal(res.status, 401, path);
          assert.equal(res.headers.get('content-type'), 'application/json');
          assert.equal(res.text, UNAUTHORIZED, path);
          assert.equal(res.headers.get('www-authenticate'), null);
        }
      }
    });

    it('an expired token is 401 invalid_token with WWW-Authenticate', async () => {
      for (const token of [t.expired!, t.revokedExpired!]) {
        const res = await get(server.url, `/api/v4/projects/${projectId}/events`, token);
        assert.equal(res.status, 401);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(
          res.text,
          JSON.stringify({ error: 'invalid_token', error_description: EXPIRED }),
        );
        assert.equal(
          res.headers.get('www-authenticate'),
          `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${EXPIRED}"`,
        );
      }
      const valid = await get(server.url, mine, t.expiresTomorrow);
      assert.equal(valid.status, 200);
    });

    it('a token expires at the start of its expiry day (UTC)', async () => {
      const clock = server.clock;
      const start = clock.now();
      try {
        clock.advance(Date.UTC(2026, 0, 16) - 1 - start);
        assert.equal((await get(server.url, mine, t.expiresTomorrow)).status, 200);
        clock.advance(1);
        const res = await get(server.url, mine, t.expiresTomorrow);
        assert.equal(res.status, 401);
        assert.equal((res.body as { error: string }).error, 'invalid_token');
      } finally {
        clock.advance(start - clock.now());
      }
    });

    it('a revoked token is 401 invalid_token', async () => {
      const res = await call(server.url, mine, {
        headers: { Authorization: `Bearer ${t.revoked}` },
      });
      assert.equal(res.status, 401);
      assert.equal(
        res.text,
        JSON.stringify({ error: 'invalid_token', error_description: REVOKED }),
      );
      assert.equal(
        res.headers.get('www-authenticate'),
        `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${REVOKED}"`,
      );
    });

    it("a blocked user's token is 403 with the blocked reason", async () => {
      for (const path of [mine, `/api/v4/projects/${projectId}/events`, '/api/v4/user']) {
        const res = await get(server.url, path, t.blocked);
        assert.equal(res.status, 403, path);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(res.text, '{"message":"403 Forbidden - Your account has been blocked."}');
      }
    });

    it('read_user works on /events, /users/:id/events and /user', async () => {
      for (const path of [mine, '/api/v4/users/alice/events', '/api/v4/user']) {
        const res = await get(server.url, path, t.readUser);
        assert.equal(res.status, 200, path);
      }
      // A read_user token still sees alice's private-project events on her feed.
      const res = await get(server.url, mine, t.readUser);
      assert.deepEqual(ids(res.body), eventIds);
    });

    it('read_user on /projects/:id/events is 403 insufficient_scope naming api read_api', async () => {
      for (const path of [
        `/api/v4/projects/${projectId}/events`,
        `/api/v4/${privateProjectId}/events`,
      ]) {
        const res = await get(server.url, path, t.readUser);
        assert.equal(res.status, 403, path);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(
          res.text,
          JSON.stringify({
            error: 'insufficient_scope',
            error_description: SCOPE_DESCRIPTION,
            scope: 'api read_api',
          }),
        );
        // RFC 6750 §3: the challenge names the error and the scopes that would do.
        assert.equal(
          res.headers.get('www-authenticate'),
          `Bearer realm="Protected by OAuth 2.0", error="insufficient_scope", error_description="${SCOPE_DESCRIPTION}", scope="api read_api"`,
        );
      }
    });

    it('a token with no accepted scope is 403 everywhere', async () => {
      const cases: Array<[string, string]> = [
        [mine, 'read_user api read_api'],
        ['/api/v4/users/alice/events', 'read_user api read_api'],
        [`/api/v4/projects/${projectId}/events`, 'api read_api'],
      ];
      for (const [path, scope] of cases) {
        const res = await get(server.url, path, t.readRepository);
        assert.equal(res.status, 403, path);
        assert.equal(
          res.text,
          JSON.stringify({
            error: 'insufficient_scope',
            error_description: SCOPE_DESCRIPTION,
            scope,
          }),
        );
      }
    });

    it('api and read_api work on every GET endpoint', async () => {
      for (const token of [t.api!, t.readApi!]) {
        for (const path of [
          mine,
          '/api/v4/users/alice/events',
          `/api/v4/projects/${privateProjectId}/events`,
          '/api/v4/user',
          '/api/v4/version',
        ]) {
          assert.equal((await get(server.url, path, token)).status, 200, path);
        }
      }
    });

    it('last_used_at is written at most every 10 minutes', async () => {
      const row = () =>
        server.store.db
          .selectFrom('personal_access_tokens')
          .select('last_used_at')
          .where('token_digest', '=', digest(t.touch!))
          .executeTakeFirstOrThrow();
      assert.equal((await row()).last_used_at, null);
      const first = server.clock.now();
      assert.equal((await get(server.url, mine, t.touch)).status, 200);
      assert.equal(Number((await row()).last_used_at), first);
      server.clock.advance(5 * 60_000);
      await get(server.url, mine, t.touch);
      assert.equal(Number((await row()).last_used_at), first);
      server.clock.advance(5 * 60_000);
      await get(server.url, mine, t.touch);
      // Exactly ten minutes later: still within the window.
      assert.equal(Number((await row()).last_used_at), first);
      server.clock.advance(1);
      await get(server.url, mine, t.touch);
      assert.equal(Number((await row()).last_used_at), first + 10 * 60_000 + 1);
    });
  });
}
