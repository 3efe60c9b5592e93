/**
 * How `:id` is resolved: users by id or case-insensitive username, projects by id or URL-encoded
 * full path (also `%2E`), GitLab's 404 bodies for each miss, and `/user` and `/version`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { get, ids, rawGet } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const USER_404 = '{"message":"404 User Not Found"}';
const PROJECT_404 = '{"message":"404 Project Not Found"}';
const ROUTE_404 = '{"error":"404 Not Found"}';

for (const dialect of DIALECTS) {
  describe(`lookups, /user and /version (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let aliceId: number;
    let digitsId: number;
    let nestedId: number;
    let dottedId: number;
    let nestedEvent: number;
    let dottedEvent: number;
    let aliceEvents: number[];

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('Alice.Smith');
          aliceId = alice.id;
          // A user whose username is all digits can only be reached by id.
          digitsId = (await f.user('4242')).id;
          const nested = await f.project('group/sub/proj', alice.id, 'public');
          const dotted = await f.project('group/web.site', alice.id, 'public');
          nestedId = nested.id;
          dottedId = dotted.id;
          nestedEvent = (
            await f.event({
              projectId: nested.id,
              authorId: alice.id,
              action: 'joined',
              createdAt: '2026-01-02T00:00:00Z',
            })
          ).id;
          dottedEvent = (
            await f.event({
              projectId: dotted.id,
              authorId: alice.id,
              action: 'joined',
              createdAt: '2026-01-03T00:00:00Z',
            })
          ).id;
          aliceEvents = [dottedEvent, nestedEvent];
          token = await f.token(alice.id, ['read_api']);
        },
      });
    });
    after(() => server.close());

    it('users by id and by case-insensitive username', async () => {
      for (const id of [
        String(aliceId),
        'Alice.Smith',
        'alice.smith',
        'ALICE.SMITH',
        'alice%2Esmith',
      ]) {
        const res = await get(server.url, `/api/v4/users/${id}/events`);
        assert.equal(res.status, 200, id);
        assert.deepEqual(ids(res.body), aliceEvents, id);
      }
    });

    it('unknown users are 404 "User Not Found"', async () => {
      // A NUL byte is a miss too (PostgreSQL text cannot even compare against one).
      for (const id of [
        'nobody',
        '999999',
        // Beyond PostgreSQL's 32-bit ids, within JavaScript's safe integers: once a 500 there.
        '2147483648',
        '9007199254740991',
        '99999999999999999999999',
        '4242',
        '%20',
        'a%2Fb',
        'alice%00',
      ]) {
        const res = await get(server.url, `/api/v4/users/${id}/events`);
        assert.equal(res.status, 404, id);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(res.text, USER_404, id);
      }
      // The all-digits username is reachable by its id.
      const byId = await get(server.url, `/api/v4/users/${digitsId}/events`);
      assert.equal(byId.status, 200);
    });

    it('projects by id, or by URL-encoded full path in any case', async () => {
      const cases: Array<[string, number]> = [
        [String(nestedId), nestedEvent],
        ['group%2Fsub%2Fproj', nestedEvent],
        ['GROUP%2Fsub%2FProj', nestedEvent],
        ['group%2fsub%2fproj', nestedEvent],
        [String(dottedId), dottedEvent],
        ['group%2Fweb.site', dottedEvent],
        ['group%2Fweb%2Esite', dottedEvent],
        ['group%2Fweb%2esite', dottedEvent],
      ];
      for (const [id, event] of cases) {
        for (const prefix of ['/api/v4/projects', '/api/v4']) {
          const res = await get(server.url, `${prefix}/${id}/events`, token);
          assert.equal(res.status, 200, `${prefix}/${id}`);
          assert.deepEqual(ids(res.body), [event], `${prefix}/${id}`);
        }
      }
    });

    it('misses are 404 "Project Not Found"; an unencoded path matches no route', async () => {
      for (const id of [
        'project',
        'proj',
        'group%2Fnope',
        'group%2Fsub%2Fproj%00',
        '0',
        '-1',
        '999999',
        '1e3',
        '2147483648',
        '9007199254740991',
        '99999999999999999999999',
      ]) {
        for (const path of [`/api/v4/projects/${id}/events`, `/api/v4/projects/${id}`]) {
          const res = await get(server.url, path, token);
          assert.equal(res.status, 404, path);
          assert.equal(res.headers.get('content-type'), 'application/json');
          assert.equal(res.text, PROJECT_404, path);
        }
      }
      for (const path of [
        '/api/v4/projects/group/sub/proj/events',
        '/api/v4/projects/group/web.site/events',
      ]) {
        const res = await get(server.url, path, token);
        assert.equal(res.status, 404, path);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(res.text, ROUTE_404, path);
      }
      // Dot segments are not a way around the encoding rule either.
      const dots = await rawGet(server.url, '/api/v4/projects/group/../events');
      assert.equal(dots.status, 404);
      assert.ok(dots.text === ROUTE_404 || dots.text === PROJECT_404, dots.text);
    });

    it('unknown API routes are 404 {"error":"404 Not Found"}', async () => {
      for (const path of [
        '/api/v4/nope',
        // `/users` and `/users/:id` are routes now (the navigation reads): an unknown sub-path is not.
        '/api/v4/users/1/nope',
        // `/projects/:id` is a route now (the writes' project entity): an unknown sub-path is not.
        '/api/v4/projects/1/nope',
        '/api/v4/events/1',
        '/api/v4/',
      ]) {
        const res = await get(server.url, path, token);
        assert.equal(res.status, 404, path);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(res.text, ROUTE_404, path);
      }
    });

    it('GET /user returns the token owner with a web_url on the external URL', async () => {
      const res = await get(server.url, '/api/v4/user', token);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      const user = res.body as Record<string, unknown>;
      assert.equal(user.id, aliceId);
      assert.equal(user.username, 'Alice.Smith');
      assert.equal(user.web_url, `${server.url}/Alice.Smith`);
      assert.equal(user.state, 'active');
      assert.equal(user.is_admin, false);
      assert.deepEqual(Object.keys(user).slice(0, 7), [
        'id',
        'username',
        'name',
        'state',
        'locked',
        'avatar_url',
        'web_url',
      ]);
      const anonymous = await get(server.url, '/api/v4/user');
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.text, '{"message":"401 Unauthorized"}');
      assert.equal(anonymous.headers.get('www-authenticate'), null);
    });

    it('GET /version answers {version, revision} to signed-in callers', async () => {
      const res = await get(server.url, '/api/v4/version', token);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      const body = res.body as { version: string; revision: string };
      assert.match(body.version, /^\d+\.\d+\.\d+/);
      assert.equal(typeof body.revision, 'string');
      assert.ok(body.revision.length > 0);
      const anonymous = await get(server.url, '/api/v4/version');
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.text, '{"message":"401 Unauthorized"}');
    });

    it('GET /events needs a signed-in user', async () => {
      const res = await get(server.url, '/api/v4/events');
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.text, '{"message":"401 Unauthorized"}');
    });
  });
}
