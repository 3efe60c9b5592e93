/**
 * Offset pagination as GitLab (Kaminari) serves it: defaults and clamps, the X-* headers, and a
 * Link header built from the configured external URL with every original parameter repeated
 * (credentials excepted).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { call, get, ids, links, pagination, rawGet } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const EXTERNAL = 'https://pulse.example.org';
const TOTAL = 45;

for (const dialect of DIALECTS) {
  describe(`offset pagination (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let projectId: number;
    let emptyProjectId: number;
    /** Event ids newest first, as the default listing returns them. */
    let all: number[];

    before(async () => {
      server = await startServer({
        dialect,
        config: { externalUrl: EXTERNAL },
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          const project = await f.project('acme/web.site', alice.id, 'public');
          const empty = await f.project('acme/empty', alice.id, 'public');
          projectId = project.id;
          emptyProjectId = empty.id;
          const created: number[] = [];
          for (let i = 0; i < TOTAL; i++) {
            const row = await f.event({
              projectId: project.id,
              authorId: alice.id,
              action: i % 3 === 0 ? 'joined' : 'created',
              createdAt: Date.UTC(2026, 0, 1) + i * 60_000,
            });
            created.push(row.id);
          }
          all = created.reverse();
          token = await f.token(alice.id, ['api']);
        },
      });
    });
    after(() => server.close());

    const base = () => `${EXTERNAL}/api/v4/projects/${projectId}/events`;
    const list = (query: string) =>
      get(server.url, `/api/v4/projects/${projectId}/events${query}`, token);

    it('defaults to page 1 of 20 with next, first and last links', async () => {
      const res = await list('');
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res.body), all.slice(0, 20));
      assert.deepEqual(pagination(res.headers), {
        page: '1',
        perPage: '20',
        next: '2',
        prev: '',
        total: '45',
        totalPages: '3',
      });
      assert.equal(
        res.headers.get('link'),
        `<${base()}?page=2&per_page=20&sort=desc>; rel="next", ` +
          `<${base()}?page=1&per_page=20&sort=desc>; rel="first", ` +
          `<${base()}?page=3&per_page=20&sort=desc>; rel="last"`,
      );
    });

    it('a middle page links prev, next, first, last in that order', async () => {
      const res = await list('?page=2');
      assert.deepEqual(ids(res.body), all.slice(20, 40));
      assert.deepEqual(pagination(res.headers), {
        page: '2',
        perPage: '20',
        next: '3',
        prev: '1',
        total: '45',
        totalPages: '3',
      });
      assert.deepEqual(links(res.headers), [
        ['prev', `${base()}?page=1&per_page=20&sort=desc`],
        ['next', `${base()}?page=3&per_page=20&sort=desc`],
        ['first', `${base()}?page=1&per_page=20&sort=desc`],
        ['last', `${base()}?page=3&per_page=20&sort=desc`],
      ]);
    });

    it('the last page has no next link and an empty X-Next-Page', async () => {
      const res = await list('?page=3');
      assert.deepEqual(ids(res.body), all.slice(40));
      assert.equal(res.headers.get('x-next-page'), '');
      assert.equal(res.headers.get('x-prev-page'), '2');
      assert.deepEqual(
        links(res.headers).map(([rel]) => rel),
        ['prev', 'first', 'last'],
      );
    });

    it('per_page above 100 is clamped to 100, in headers and links', async () => {
      const res = await list('?per_page=500');
      assert.deepEqual(ids(res.body), all);
      assert.equal(res.headers.get('x-per-page'), '100');
      assert.equal(res.headers.get('x-total-pages'), '1');
      assert.deepEqual(links(res.headers), [
        ['first', `${base()}?page=1&per_page=100&sort=desc`],
        ['last', `${base()}?page=1&per_page=100&sort=desc`],
      ]);
    });

    it('per_page=0 is 400 "per_page has a value not allowed"', async () => {
      const res = await list('?per_page=0');
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.text, '{"error":"per_page has a value not allowed"}');
    });

    it('a negative per_page is ignored (20); page <= 0 is page 1', async () => {
      for (const query of ['?per_page=-5', '?per_page=-1&page=0', '?page=-3', '?page=0']) {
        const res = await list(query);
        assert.equal(res.status, 200, query);
        assert.deepEqual(ids(res.body), all.slice(0, 20), query);
        assert.equal(res.headers.get('x-page'), '1', query);
        assert.equal(res.headers.get('x-per-page'), '20', query);
        assert.equal(res.headers.get('x-prev-page'), '', query);
      }
    });

    it('non-integer page and per_page are 400 "is invalid"', async () => {
      const cases: Array<[string, string]> = [
        ['?page=two', 'page is invalid'],
        ['?page=1.5', 'page is invalid'],
        ['?per_page=2e1', 'per_page is invalid'],
        ['?per_page=ten&page=x', 'page is invalid, per_page is invalid'],
      ];
      for (const [query, message] of cases) {
        const res = await list(query);
        assert.equal(res.status, 400, query);
        assert.equal(res.text, JSON.stringify({ error: message }), query);
      }
    });

    it('a page past the end is 200 [] echoing X-Page with empty next and prev', async () => {
      const res = await list('?page=10&per_page=20');
      assert.equal(res.status, 200);
      assert.equal(res.text, '[]');
      assert.deepEqual(pagination(res.headers), {
        page: '10',
        perPage: '20',
        next: '',
        prev: '',
        total: '45',
        totalPages: '3',
      });
      assert.deepEqual(links(res.headers), [
        ['first', `${base()}?page=1&per_page=20&sort=desc`],
        ['last', `${base()}?page=3&per_page=20&sort=desc`],
      ]);
      const huge = await list('?page=99999999999999999999');
      assert.equal(huge.status, 200);
      assert.equal(huge.text, '[]');
    });

    it('an empty listing has X-Total 0, X-Total-Pages 1 and last = page 1', async () => {
      const res = await get(server.url, `/api/v4/projects/${emptyProjectId}/events`, token);
      assert.equal(res.status, 200);
      assert.equal(res.text, '[]');
      assert.deepEqual(pagination(res.headers), {
        page: '1',
        perPage: '20',
        next: '',
        prev: '',
        total: '0',
        totalPages: '1',
      });
      const emptyBase = `${EXTERNAL}/api/v4/projects/${emptyProjectId}/events`;
      assert.deepEqual(links(res.headers), [
        ['first', `${emptyBase}?page=1&per_page=20&sort=desc`],
        ['last', `${emptyBase}?page=1&per_page=20&sort=desc`],
      ]);
    });

    it('every original parameter is repeated in links, keys sorted like Rails to_query', async () => {
      const res = await list(
        '?sort=asc&per_page=5&action=created&zeta=last&foo=a%20b&alpha=%C3%BC',
      );
      assert.equal(res.status, 200);
      const q = 'action=created&alpha=%C3%BC&foo=a+b';
      assert.deepEqual(links(res.headers), [
        ['next', `${base()}?${q}&page=2&per_page=5&sort=asc&zeta=last`],
        ['first', `${base()}?${q}&page=1&per_page=5&sort=asc&zeta=last`],
        ['last', `${base()}?${q}&page=6&per_page=5&sort=asc&zeta=last`],
      ]);
      // Link values parse back to the same parameters.
      const next = new URL(links(res.headers)[0]![1]);
      assert.equal(next.searchParams.get('foo'), 'a b');
      assert.equal(next.searchParams.get('alpha'), 'ü');
    });

    it('links escape like CGI.escape and repeat keys the way Rack parsed them', async () => {
      const res = await list('?per_page=40&x=(a)*!%27&dup=1&dup=2&arr[]=2&arr[]=1&h[k]=v&one[]=z');
      assert.equal(res.status, 200);
      assert.equal(
        links(res.headers)[0]![1],
        `${base()}?arr%5B%5D=2&arr%5B%5D=1&dup=2&h%5Bk%5D=v&one%5B%5D=z&page=2&per_page=40` +
          '&sort=desc&x=%28a%29%2A%21%27',
      );
    });

    it('filters on /events and /users/:id/events are repeated too', async () => {
      const mine = await get(
        server.url,
        '/api/v4/events?action=joined&per_page=2&after=2025-12-31&scope=mine',
        token,
      );
      assert.equal(mine.status, 200);
      assert.equal(
        links(mine.headers).find(([rel]) => rel === 'next')![1],
        `${EXTERNAL}/api/v4/events?action=joined&after=2025-12-31&page=2&per_page=2&scope=mine&sort=desc`,
      );
      const user = await get(server.url, '/api/v4/users/ALICE/events?target_type=user', token);
      assert.equal(
        links(user.headers)[0]![1],
        `${EXTERNAL}/api/v4/users/ALICE/events?page=1&per_page=20&sort=desc&target_type=user`,
      );
    });

    it('credential parameters are never echoed into links', async () => {
      for (const param of ['private_token', 'access_token']) {
        const res = await call(
          server.url,
          `/api/v4/projects/${projectId}/events?${param}=${token}&per_page=10`,
        );
        assert.equal(res.status, 200, param);
        const link = res.headers.get('link')!;
        assert.ok(!link.includes(token), `${param} leaked into Link`);
        assert.ok(!link.includes(param), `${param} leaked into Link`);
        assert.deepEqual(links(res.headers)[0], ['next', `${base()}?page=2&per_page=10&sort=desc`]);
      }
    });

    it('a URL-encoded project path stays encoded in links', async () => {
      const res = await get(
        server.url,
        '/api/v4/projects/acme%2Fweb%2Esite/events?per_page=40',
        token,
      );
      assert.equal(res.status, 200);
      assert.equal(
        links(res.headers)[0]![1],
        `${EXTERNAL}/api/v4/projects/acme%2Fweb%2Esite/events?page=2&per_page=40&sort=desc`,
      );
    });

    it('a forged Host or X-Forwarded-* header changes nothing', async () => {
      const honest = await list('?per_page=10');
      const forged = await rawGet(server.url, `/api/v4/projects/${projectId}/events?per_page=10`, {
        Host: 'evil.example',
        'X-Forwarded-Host': 'evil.example',
        'X-Forwarded-Proto': 'http',
        'X-Forwarded-Port': '8080',
        Forwarded: 'host=evil.example;proto=http',
        'PRIVATE-TOKEN': token,
      });
      assert.equal(forged.status, 200);
      assert.equal(forged.headers.get('link'), honest.headers.get('link'));
      assert.ok(!forged.headers.get('link')!.includes('evil'));
    });

    it('following rel="next" visits every event exactly once', async () => {
      let url: string | undefined = `/api/v4/projects/${projectId}/events?per_page=7&sort=asc`;
      const seen: number[] = [];
      let pages = 0;
      while (url) {
        const res = await get(server.url, url, token);
        assert.equal(res.status, 200);
        seen.push(...ids(res.body));
        pages++;
        const next = links(res.headers).find(([rel]) => rel === 'next');
        url = next ? next[1].slice(EXTERNAL.length) : undefined;
      }
      assert.equal(pages, 7);
      assert.deepEqual(seen, [...all].reverse());
    });
  });
}
