/**
 * Wire details clients depend on: `Content-Type: application/json` exactly (no charset) on every
 * answer, request bodies that carry a content type but no bytes, and the rate limiter's 429.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { call, get, rawGet } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`wire details (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let readUserToken: string;
    let projectId: number;

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          projectId = (await f.project('acme/app', alice.id, 'public')).id;
          await f.event({
            projectId,
            authorId: alice.id,
            action: 'joined',
            createdAt: Date.UTC(2026, 0, 2),
          });
          token = await f.token(alice.id, ['api']);
          readUserToken = await f.token(alice.id, ['read_user']);
        },
      });
    });
    after(() => server.close());

    it('every answer is exactly application/json, success and error alike', async () => {
      const cases: Array<[string, string | undefined, number]> = [
        ['/api/v4/events', token, 200],
        [`/api/v4/projects/${projectId}/events`, undefined, 200],
        ['/api/v4/users/alice/events', undefined, 200],
        ['/api/v4/user', token, 200],
        ['/api/v4/version', token, 200],
        ['/api/v4/events?action=nope', token, 400],
        ['/api/v4/events', undefined, 401],
        ['/api/v4/events', 'glpat-bogus', 401],
        [`/api/v4/projects/${projectId}/events`, readUserToken, 403],
        ['/api/v4/projects/999/events', undefined, 404],
        ['/api/v4/users/ghost/events', undefined, 404],
        ['/api/v4/no/such/route', undefined, 404],
      ];
      for (const [path, tok, status] of cases) {
        const res = await get(server.url, path, tok);
        assert.equal(res.status, status, path);
        assert.equal(res.headers.get('content-type'), 'application/json', path);
        assert.equal(typeof res.body, 'object', path);
      }
    });

    it('GET with a JSON or form content type and no body is fine', async () => {
      for (const type of ['application/json', 'application/x-www-form-urlencoded', 'text/plain']) {
        const res = await call(server.url, '/api/v4/events', {
          headers: { 'PRIVATE-TOKEN': token, 'Content-Type': type },
        });
        assert.equal(res.status, 200, type);
        assert.equal(res.headers.get('content-type'), 'application/json');
      }
    });

    it('DELETE with Content-Type: application/json and no body is a JSON 404, not a 400', async () => {
      for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
        for (const path of [
          '/api/v4/events',
          `/api/v4/projects/${projectId}/events`,
          '/api/v4/user',
        ]) {
          const res = await call(server.url, path, {
            method: 'DELETE',
            headers: { 'PRIVATE-TOKEN': token, 'Content-Type': type },
          });
          assert.ok(res.status === 404 || res.status === 405, `${type} ${path}: ${res.status}`);
          assert.equal(res.headers.get('content-type'), 'application/json');
          assert.ok(!res.text.includes('FST_'), res.text);
          assert.equal(res.text, '{"error":"404 Not Found"}');
        }
      }
    });

    it('a malformed JSON body gets a JSON 4xx without internals', async () => {
      const res = await call(server.url, '/api/v4/events', {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
        body: '{"broken":',
      });
      assert.ok(res.status >= 400 && res.status < 500, String(res.status));
      assert.equal(res.headers.get('content-type'), 'application/json');
      const body = res.body as Record<string, unknown>;
      assert.equal(typeof (body.error ?? body.message), 'string');
      assert.ok(!res.text.includes('at '), res.text);
      assert.ok(!res.text.includes('FST_'), res.text);
    });

    it('a malformed percent-encoding is a JSON 400 without framework internals', async () => {
      for (const path of [
        '/api/v4/users/%E0%A4%A/events',
        '/api/v4/projects/a%2/events',
        '/api/v4/%',
      ]) {
        const res = await rawGet(server.url, path);
        assert.equal(res.status, 400, path);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(res.text, '{"error":"400 Bad Request - malformed URL"}');
      }
    });

    it('HEAD on an events route answers like GET without a body', async () => {
      const res = await call(server.url, `/api/v4/projects/${projectId}/events`, {
        method: 'HEAD',
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.headers.get('x-total'), '1');
      assert.equal(res.text, '');
    });
  });

  describe(`rate limiting (${dialect})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer({
        dialect,
        config: { rateLimit: 3 },
        seed: async (store) => {
          const f = new Fixtures(store);
          await f.user('alice');
        },
      });
    });
    after(() => server.close());

    it('a 429 has an integer Retry-After and a JSON error', async () => {
      const statuses: number[] = [];
      let limited;
      for (let i = 0; i < 5; i++) {
        const res = await get(server.url, '/api/v4/users/alice/events');
        statuses.push(res.status);
        if (res.status === 429) limited ??= res;
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.ok(limited);
      assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      assert.equal(limited.headers.get('content-type'), 'application/json');
      const body = limited.body as { error: unknown; message?: unknown };
      assert.equal(typeof body.error, 'string');
      assert.ok((body.error as string).length > 0);
    });
  });
}
