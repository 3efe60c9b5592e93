/**
 * Large listings: GitLab's 10,000 count cap (X-Total, X-Total-Pages and rel="last" omitted above
 * it while next links continue) and deep offset pages that return exactly the right ids, also
 * after new events arrive between requests (the listing cache must never serve a stale page).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Action } from '../../src/domain/vocabulary.js';
import { openStore } from '../../src/store/store.js';
import { type BulkEvent, insertEvents } from '../helpers/bulk.js';
import { Fixtures } from '../helpers/fixtures.js';
import { get, ids, links, pagination } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

interface Row {
  id: number;
  projectId: number;
  action: Action;
}

const T0 = Date.UTC(2025, 0, 1);

for (const dialect of DIALECTS) {
  describe(`count cap and deep pages (${dialect})`, () => {
    let server: TestServer;
    let aliceId: number;
    let publicId: number;
    let privateId: number;
    let token: string;
    /** Every event, ascending id. */
    const model: Row[] = [];

    /** Appends events in order and records them in the model. */
    async function append(specs: Array<{ projectId: number; action: Action }>) {
      const bulk: BulkEvent[] = specs.map((s, i) => ({
        projectId: s.projectId,
        authorId: aliceId,
        action: s.action,
        createdAt: T0 + (model.length + i) * 1000,
      }));
      const newIds = await insertEvents(server.store, bulk);
      specs.forEach((s, i) => model.push({ id: newIds[i]!, ...s }));
    }

    /** Expected ids of a page given a model filter. */
    function slice(
      keep: (r: Row) => boolean,
      page: number,
      perPage: number,
      sort: 'asc' | 'desc' = 'desc',
    ) {
      const rows = model.filter(keep).map((r) => r.id);
      if (sort === 'desc') rows.reverse();
      return rows.slice((page - 1) * perPage, page * perPage);
    }

    before(async () => {
      server = await startServer({ dialect });
      const f = new Fixtures(server.store);
      const alice = await f.user('alice');
      aliceId = alice.id;
      publicId = (await f.project('acme/big', alice.id, 'public')).id;
      privateId = (await f.project('acme/secret', alice.id, 'private')).id;
      await f.member(privateId, alice.id, 50);
      token = await f.token(alice.id, ['api']);
      // 12,000 public events (10,000 created + 2,000 joined) interleaved with 1,000 private ones.
      const specs: Array<{ projectId: number; action: Action }> = [];
      let publicCount = 0;
      for (let i = 0; i < 13_000; i++) {
        if (i % 13 === 12) specs.push({ projectId: privateId, action: 'created' });
        else
          specs.push({
            projectId: publicId,
            action: publicCount++ % 6 === 5 ? 'joined' : 'created',
          });
      }
      await append(specs);
    });
    after(() => server.close());

    const isPublic = (r: Row) => r.projectId === publicId;

    it('above 10,000 X-Total, X-Total-Pages and rel="last" are omitted; next continues', async () => {
      assert.equal(model.filter(isPublic).length, 12_000);
      const res = await get(server.url, `/api/v4/projects/${publicId}/events`, token);
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res.body), slice(isPublic, 1, 20));
      assert.deepEqual(pagination(res.headers), {
        page: '1',
        perPage: '20',
        next: '2',
        prev: '',
        total: null,
        totalPages: null,
      });
      assert.deepEqual(
        links(res.headers).map(([rel]) => rel),
        ['next', 'first'],
      );
    });

    it('exactly 10,000 is still counted', async () => {
      const created = (r: Row) => isPublic(r) && r.action === 'created';
      assert.equal(model.filter(created).length, 10_000);
      const res = await get(
        server.url,
        `/api/v4/projects/${publicId}/events?action=created&per_page=100&page=2`,
        token,
      );
      assert.deepEqual(ids(res.body), slice(created, 2, 100));
      assert.equal(res.headers.get('x-total'), '10000');
      assert.equal(res.headers.get('x-total-pages'), '100');
      assert.deepEqual(
        links(res.headers).map(([rel]) => rel),
        ['prev', 'next', 'first', 'last'],
      );
    });

    it('deep pages return exactly the model ids, both directions', async () => {
      const cases: Array<[number, number, 'asc' | 'desc']> = [
        [400, 20, 'desc'],
        [400, 20, 'asc'],
        [399, 20, 'desc'],
        [401, 20, 'desc'],
        [61, 100, 'desc'],
        [550, 20, 'desc'],
        [11, 1000, 'asc'], // per_page clamps to 100: page 11 of 100
      ];
      for (const [page, perPage, sort] of cases) {
        const res = await get(
          server.url,
          `/api/v4/projects/${publicId}/events?page=${page}&per_page=${perPage}&sort=${sort}`,
          token,
        );
        assert.equal(res.status, 200);
        assert.deepEqual(
          ids(res.body),
          slice(isPublic, page, Math.min(perPage, 100), sort),
          `page ${page}/${perPage} ${sort}`,
        );
      }
    });

    it('the last uncounted page has no next; past it is [] with empty next and prev', async () => {
      const last = await get(server.url, `/api/v4/projects/${publicId}/events?page=600`, token);
      assert.deepEqual(ids(last.body), slice(isPublic, 600, 20));
      assert.equal(last.headers.get('x-next-page'), '');
      assert.equal(last.headers.get('x-prev-page'), '599');
      const past = await get(server.url, `/api/v4/projects/${publicId}/events?page=601`, token);
      assert.equal(past.status, 200);
      assert.equal(past.text, '[]');
      assert.deepEqual(pagination(past.headers), {
        page: '601',
        perPage: '20',
        next: '',
        prev: '',
        total: null,
        totalPages: null,
      });
      assert.deepEqual(
        links(past.headers).map(([rel]) => rel),
        ['first'],
      );
    });

    it('visibility is applied inside the query: deep pages stay full and exact', async () => {
      // Anonymous: alice's events in the public project only.
      const anon = await get(server.url, '/api/v4/users/alice/events?page=400&per_page=20');
      assert.deepEqual(ids(anon.body), slice(isPublic, 400, 20));
      // alice herself: both projects, interleaved.
      const own = await get(server.url, '/api/v4/users/alice/events?page=400&per_page=20', token);
      assert.deepEqual(
        ids(own.body),
        slice(() => true, 400, 20),
      );
      const feed = await get(server.url, '/api/v4/events?page=640&per_page=20&sort=asc', token);
      assert.deepEqual(
        ids(feed.body),
        slice(() => true, 640, 20, 'asc'),
      );
    });

    it('new events between requests never produce a stale page or count', async () => {
      const path = `/api/v4/projects/${publicId}/events?page=400&per_page=20`;
      const joined = (r: Row) => isPublic(r) && r.action === 'joined';
      const first = await get(server.url, path, token);
      assert.deepEqual(ids(first.body), slice(isPublic, 400, 20));
      const count = await get(
        server.url,
        `/api/v4/projects/${publicId}/events?action=joined`,
        token,
      );
      assert.equal(count.headers.get('x-total'), '2000');

      await append(
        Array.from({ length: 37 }, (_, i) => ({
          projectId: publicId,
          action: (i % 2 ? 'joined' : 'created') as Action,
        })),
      );
      // PostgreSQL gives no cheap change signal: its cache entries live for a few seconds.
      if (dialect === 'postgres') server.clock.advance(10_000);

      const second = await get(server.url, path, token);
      assert.deepEqual(ids(second.body), slice(isPublic, 400, 20));
      assert.notDeepEqual(ids(second.body), ids(first.body));
      const recount = await get(
        server.url,
        `/api/v4/projects/${publicId}/events?action=joined`,
        token,
      );
      assert.equal(recount.headers.get('x-total'), String(model.filter(joined).length));
      assert.equal(recount.headers.get('x-total'), '2018');
      const asc = await get(server.url, `${path}&sort=asc`, token);
      assert.deepEqual(ids(asc.body), slice(isPublic, 400, 20, 'asc'));
    });

    if (dialect === 'sqlite') {
      it('a write by another process (a CLI import) invalidates the cache at once', async () => {
        const path = `/api/v4/projects/${publicId}/events?page=300&per_page=20`;
        const before = await get(server.url, path, token);
        assert.deepEqual(ids(before.body), slice(isPublic, 300, 20));
        const other = await openStore(server.config.databaseUrl);
        try {
          const newIds = await insertEvents(
            other,
            Array.from({ length: 5 }, (_, i) => ({
              projectId: publicId,
              authorId: aliceId,
              action: 'created' as const,
              createdAt: T0 + i,
            })),
          );
          newIds.forEach((id) => model.push({ id, projectId: publicId, action: 'created' }));
        } finally {
          await other.close();
        }
        const after = await get(server.url, path, token);
        assert.deepEqual(ids(after.body), slice(isPublic, 300, 20));
        assert.notDeepEqual(ids(after.body), ids(before.body));
      });
    }
  });
}
