/**
 * Stars over GitLab's REST API, on both dialects: star and unstar (201 with the project, 304 with
 * no body when nothing changes), starrers (search, pages, private profiles), starred projects,
 * `star_count`, `GET /projects?starred=true` and `order_by=star_count`, with the statuses GitLab
 * gives callers without a token, without the `api` scope, or without access to the project.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pagination } from '../helpers/http.js';
import { DIALECTS } from '../helpers/server.js';
import { type Actors, api, startWithUsers } from '../writes/helpers.js';

for (const dialect of DIALECTS) {
  describe(`stars (${dialect})`, () => {
    let a: Actors;
    let pub: number;
    let priv: number;
    let other: number;
    let readOnly: string;
    const v4 = (method: string, path: string, user?: string) =>
      api(a.server, method, path, user === undefined ? undefined : a.tokens[user]);
    const paths = (body: unknown) =>
      (body as { path_with_namespace: string }[]).map((p) => p.path_with_namespace);

    before(async () => {
      a = await startWithUsers(dialect, ['alice', 'bob', 'carol', 'dave', 'root']);
      await a.server.store.db
        .updateTable('users')
        .set({ private_profile: 1 })
        .where('id', '=', a.ids.dave!)
        .execute();
      await a.server.store.db
        .updateTable('users')
        .set({ admin: 1 })
        .where('id', '=', a.ids.root!)
        .execute();
      pub = (await a.fx.project('alice/pub', a.ids.alice!, 'public')).id;
      priv = (await a.fx.project('alice/priv', a.ids.alice!, 'private')).id;
      other = (await a.fx.project('bob/other', a.ids.bob!, 'public')).id;
      await a.fx.member(priv, a.ids.alice!, 50);
      readOnly = await a.fx.token(a.ids.bob!, ['read_api']);
    });
    after(() => a.server.close());

    it('POST /projects/:id/star: 201 with the project and its star_count, then 304 with no body', async () => {
      const first = await v4('POST', `/projects/${pub}/star`, 'bob');
      assert.equal(first.status, 201);
      const project = first.body as Record<string, unknown>;
      assert.equal(project.id, pub);
      assert.equal(project.path_with_namespace, 'alice/pub');
      assert.equal(project.star_count, 1);
      assert.ok('permissions' in project, 'the full project entity');

      const again = await v4('POST', `/projects/${pub}/star`, 'bob');
      assert.equal(again.status, 304);
      assert.equal(again.text, '');

      const byPath = await v4('POST', `/projects/alice%2Fpub/star`, 'carol');
      assert.equal(byPath.status, 201);
      assert.equal((byPath.body as { star_count: number }).star_count, 2);

      const shown = await v4('GET', `/projects/${pub}`, 'alice');
      assert.equal((shown.body as { star_count: number }).star_count, 2);
    });

    it('POST /projects/:id/unstar: 201 with the project, then 304 when not starred', async () => {
      await v4('POST', `/projects/${other}/star`, 'alice');
      const r = await v4('POST', `/projects/${other}/unstar`, 'alice');
      assert.equal(r.status, 201);
      assert.equal((r.body as { id: number; star_count: number }).id, other);
      assert.equal((r.body as { star_count: number }).star_count, 0);
      const again = await v4('POST', `/projects/${other}/unstar`, 'alice');
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
    });

    it('a project the caller cannot see is 404 Project Not Found, starred or not', async () => {
      for (const path of [`/projects/${priv}/star`, `/projects/${priv}/unstar`]) {
        const r = await v4('POST', path, 'bob');
        assert.equal(r.status, 404);
        assert.deepEqual(r.body, { message: '404 Project Not Found' });
      }
      const missing = await v4('POST', '/projects/999999/star', 'bob');
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Project Not Found' }]);
      const starrers = await v4('GET', `/projects/${priv}/starrers`, 'bob');
      assert.deepEqual(
        [starrers.status, starrers.body],
        [404, { message: '404 Project Not Found' }],
      );
      const anonymous = await v4('GET', `/projects/${priv}/starrers`);
      assert.equal(anonymous.status, 404);
    });

    it('writes need a token (401) with the api scope (403)', async () => {
      const anonymous = await v4('POST', `/projects/${pub}/star`);
      assert.deepEqual([anonymous.status, anonymous.body], [401, { message: '401 Unauthorized' }]);
      const r = await api(a.server, 'POST', `/projects/${pub}/star`, readOnly);
      assert.equal(r.status, 403);
      assert.equal((r.body as { error: string }).error, 'insufficient_scope');
    });

    it('GET /projects/:id/starrers: {starred_since, user} in starring order, search, pages', async () => {
      await v4('POST', `/projects/${pub}/star`, 'dave');
      const r = await v4('GET', `/projects/${pub}/starrers`, 'alice');
      assert.equal(r.status, 200);
      const items = r.body as { starred_since: string; user: Record<string, unknown> }[];
      // dave's profile is private: listed to himself and administrators only.
      assert.deepEqual(
        items.map((s) => s.user.username),
        ['bob', 'carol'],
      );
      assert.deepEqual(Object.keys(items[0]!), ['starred_since', 'user']);
      assert.match(items[0]!.starred_since, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(Object.keys(items[0]!.user), [
        'id',
        'username',
        'name',
        'state',
        'locked',
        'avatar_url',
        'web_url',
      ]);
      assert.equal(pagination(r.headers).total, '2');

      const asDave = await v4('GET', `/projects/${pub}/starrers`, 'dave');
      assert.deepEqual(
        (asDave.body as { user: { username: string } }[]).map((s) => s.user.username),
        ['bob', 'carol', 'dave'],
      );
      const asRoot = await v4('GET', `/projects/${pub}/starrers`, 'root');
      assert.equal((asRoot.body as unknown[]).length, 3);
      const anonymous = await v4('GET', `/projects/${pub}/starrers`);
      assert.equal(anonymous.status, 200);
      assert.equal((anonymous.body as unknown[]).length, 2);

      const search = await v4('GET', `/projects/${pub}/starrers?search=CAR`, 'alice');
      assert.deepEqual(
        (search.body as { user: { username: string } }[]).map((s) => s.user.username),
        ['carol'],
      );
      assert.equal(pagination(search.headers).total, '1');

      const page2 = await v4('GET', `/projects/${pub}/starrers?per_page=1&page=2`, 'alice');
      assert.deepEqual(
        (page2.body as { user: { username: string } }[]).map((s) => s.user.username),
        ['carol'],
      );
      assert.deepEqual(pagination(page2.headers), {
        page: '2',
        perPage: '1',
        next: '',
        prev: '1',
        total: '2',
        totalPages: '2',
      });
    });

    it('GET /users/:id/starred_projects: what the user starred that the caller can see', async () => {
      await v4('POST', `/projects/${priv}/star`, 'alice');
      await v4('POST', `/projects/${other}/star`, 'alice');
      const own = await v4('GET', `/users/${a.ids.alice}/starred_projects`, 'alice');
      assert.equal(own.status, 200);
      assert.deepEqual(paths(own.body), ['bob/other', 'alice/priv']);
      assert.equal(pagination(own.headers).total, '2');
      // bob cannot see alice/priv: it is not in his view of her stars.
      const seen = await v4('GET', `/users/alice/starred_projects`, 'bob');
      assert.deepEqual(paths(seen.body), ['bob/other']);
      // A private profile's stars are nobody else's business (GitLab: an empty list).
      const hidden = await v4('GET', `/users/${a.ids.dave}/starred_projects`, 'bob');
      assert.deepEqual([hidden.status, hidden.body], [200, []]);
      const mine = await v4('GET', `/users/${a.ids.dave}/starred_projects`, 'dave');
      assert.deepEqual(paths(mine.body), ['alice/pub']);
      const none = await v4('GET', '/users/999999/starred_projects', 'bob');
      assert.deepEqual([none.status, none.body], [404, { message: '404 User Not Found' }]);
    });

    it('GET /projects?starred=true lists the caller’s stars; order_by=star_count sorts by stars', async () => {
      const starred = await v4('GET', '/projects?starred=true', 'bob');
      assert.deepEqual(paths(starred.body), ['alice/pub']);
      assert.equal(pagination(starred.headers).total, '1');
      const alices = await v4('GET', '/projects?starred=true&order_by=id&sort=asc', 'alice');
      assert.deepEqual(paths(alices.body), ['alice/priv', 'bob/other']);

      // alice/pub: 3 stars (bob, carol, dave); alice/priv and bob/other: 1 each (ties by id).
      const desc = await v4('GET', '/projects?order_by=star_count', 'alice');
      assert.deepEqual(paths(desc.body), ['alice/pub', 'bob/other', 'alice/priv']);
      assert.deepEqual(
        (desc.body as { star_count: number }[]).map((p) => p.star_count),
        [3, 1, 1],
      );
      const asc = await v4('GET', '/projects?order_by=star_count&sort=asc', 'alice');
      assert.deepEqual(paths(asc.body), ['alice/priv', 'bob/other', 'alice/pub']);
      const simple = await v4('GET', '/projects?order_by=star_count&simple=true', 'alice');
      assert.deepEqual(
        (simple.body as { star_count: number }[]).map((p) => p.star_count),
        [3, 1, 1],
      );
    });

    it('stars sent at once by one user make one star: one 201, the rest 304', async () => {
      const project = (await a.fx.project('alice/race', a.ids.alice!, 'public')).id;
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => v4('POST', `/projects/${project}/star`, 'bob')),
      );
      assert.deepEqual(
        answers.map((r) => r.status).sort(),
        [201, 304, 304, 304, 304, 304, 304, 304],
      );
      const shown = await v4('GET', `/projects/${project}`, 'bob');
      assert.equal((shown.body as { star_count: number }).star_count, 1);
    });

    it('a star writes no event', async () => {
      const events = await v4('GET', `/projects/${pub}/events`, 'alice');
      assert.deepEqual(events.body, []);
    });

    it('a retry with the same Idempotency-Key gets the first answer back', async () => {
      const headers = { 'Idempotency-Key': `star-${dialect}` };
      const first = await api(
        a.server,
        'POST',
        `/projects/${other}/star`,
        a.tokens.carol,
        undefined,
        headers,
      );
      assert.equal(first.status, 201);
      const retry = await api(
        a.server,
        'POST',
        `/projects/${other}/star`,
        a.tokens.carol,
        undefined,
        headers,
      );
      assert.equal(retry.status, 201);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(retry.body, first.body);
    });
  });
}
