/**
 * Property-based: random ids (numbers, paths, percent-encoding junk), search strings and page
 * parameters at every star and follow endpoint, reads and writes, never produce a 5xx; every
 * answer is JSON with a `message` or `error` string when it is an error, except GitLab's 304,
 * which has no body. Valid requests are mixed into every stream and must still answer exactly,
 * so a server that refuses everything (or answers 404 to all) fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Fixtures } from '../helpers/fixtures.js';
import { type HttpResult, rawGet } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const URL_CHARS = [
  ..."abcAZ09-._~!$&'()*+,;=:@",
  '%2F',
  '%2E',
  '%00',
  '%0A',
  '%ZZ',
  '%C3%BC',
  '%25',
  '%',
  '..',
];
const junk = fc.array(fc.constantFrom(...URL_CHARS), { maxLength: 10 }).map((p) => p.join(''));
const anId = fc.oneof(
  junk,
  fc.constantFrom(
    '1',
    '2',
    '3',
    '0',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '99999999999',
    'alice',
    'acme%2Fapi',
  ),
  fc.integer().map(String),
);
const PARAMS = ['search', 'page', 'per_page', 'order_by', 'sort', 'simple', 'starred', 'id'];
const value = fc.oneof(
  junk,
  fc.constantFrom('', '0', '1', '-1', '101', 'a', 'BOB', '%', '_', 'star_count', 'asc', 'true'),
  fc.integer().map(String),
);
const query = fc
  .array(fc.tuple(fc.constantFrom(...PARAMS), value), { maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

const ROUTES: Array<{ method: 'GET' | 'POST'; path: (id: string) => string }> = [
  { method: 'GET', path: (id) => `/api/v4/projects/${id}/starrers` },
  { method: 'GET', path: (id) => `/api/v4/users/${id}/starred_projects` },
  { method: 'GET', path: (id) => `/api/v4/users/${id}/followers` },
  { method: 'GET', path: (id) => `/api/v4/users/${id}/following` },
  { method: 'GET', path: () => '/api/v4/projects' },
  { method: 'POST', path: (id) => `/api/v4/projects/${id}/star` },
  { method: 'POST', path: (id) => `/api/v4/projects/${id}/unstar` },
  { method: 'POST', path: (id) => `/api/v4/users/${id}/follow` },
  { method: 'POST', path: (id) => `/api/v4/users/${id}/unfollow` },
];

function assertWellFormed(res: HttpResult, label: string) {
  assert.ok(res.status < 500, `${label}: ${res.status} ${res.text}`);
  if (res.status === 304) {
    assert.equal(res.text, '', label);
    return;
  }
  assert.equal(res.headers.get('content-type'), 'application/json', label);
  assert.notEqual(res.body, undefined, `${label}: not JSON: ${res.text}`);
  if (res.status >= 400) {
    const body = res.body as Record<string, unknown>;
    assert.ok(
      typeof body.message === 'string' || typeof body.error === 'string',
      `${label}: ${res.text}`,
    );
  }
}

for (const dialect of DIALECTS) {
  describe(`fuzzing stars and follows (${dialect})`, () => {
    let server: TestServer;
    const tokens: Record<string, string> = {};
    const ids: Record<string, number> = {};

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const f = new Fixtures(store);
          for (const name of ['alice', 'bob', 'fuzz']) {
            const user = await f.user(name);
            ids[name] = user.id;
            tokens[name] = await f.token(user.id, ['api']);
          }
          ids.api = (await f.project('acme/api', ids.alice!, 'public')).id;
          ids.secret = (await f.project('acme/secret', ids.alice!, 'private')).id;
          await f.member(ids.secret, ids.alice!, 50);
          await store.db
            .insertInto('project_stars')
            .values({ user_id: ids.bob!, project_id: ids.api, created_at: 1 })
            .execute();
          await store.db
            .insertInto('user_follows')
            .values({ follower_id: ids.bob!, followee_id: ids.alice!, created_at: 1 })
            .execute();
        },
      });
    });
    after(() => server.close());

    const auth = fc.constantFrom<'none' | 'fuzz' | 'garbage'>('none', 'fuzz', 'garbage');
    const headersOf = (who: 'none' | 'fuzz' | 'garbage'): Record<string, string> =>
      who === 'none' ? {} : { 'PRIVATE-TOKEN': who === 'fuzz' ? tokens.fuzz! : 'glpat-garbage' };

    /** Requests whose answers the fuzzing user cannot change, one checked per step. */
    async function assertValidStillAnswers(which: number) {
      const bob = { 'PRIVATE-TOKEN': tokens.bob! };
      switch (which % 4) {
        case 0: {
          const r = await rawGet(server.url, `/api/v4/projects/${ids.api}/starrers?search=bo`, bob);
          assert.equal(r.status, 200, r.text);
          assert.deepEqual(
            (r.body as { user: { username: string } }[]).map((s) => s.user.username),
            ['bob'],
          );
          return;
        }
        case 1: {
          const r = await rawGet(server.url, `/api/v4/users/${ids.bob}/following`, bob);
          assert.equal(r.status, 200, r.text);
          assert.deepEqual(
            (r.body as { username: string }[]).map((u) => u.username),
            ['alice'],
          );
          return;
        }
        case 2: {
          // bob stars and unstars the private project he cannot see: 404 both ways.
          const r = await rawGet(server.url, `/api/v4/projects/${ids.secret}/star`, bob, 'POST');
          assert.deepEqual([r.status, r.body], [404, { message: '404 Project Not Found' }]);
          return;
        }
        default: {
          const r = await rawGet(
            server.url,
            `/api/v4/users/${ids.bob}/starred_projects?simple=true`,
            bob,
          );
          assert.equal(r.status, 200, r.text);
          assert.deepEqual(
            (r.body as { path_with_namespace: string }[]).map((p) => p.path_with_namespace),
            ['acme/api'],
          );
        }
      }
    }

    it('random ids, search strings and pages on every star and follow endpoint', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: ROUTES.length - 1 }),
          anId,
          query,
          auth,
          fc.nat(),
          async (which, id, q, who, check) => {
            const route = ROUTES[which]!;
            const path = `${route.path(id)}${q ? `?${q}` : ''}`;
            let res: HttpResult;
            try {
              res = await rawGet(server.url, path, headersOf(who), route.method);
            } catch (error) {
              // node's own client refuses some paths before sending: nothing reached the server.
              if (error instanceof TypeError) return;
              throw error;
            }
            assertWellFormed(res, `${route.method} ${path}`);
            await assertValidStillAnswers(check);
          },
        ),
        { numRuns: 150 },
      );
    });
  });
}
