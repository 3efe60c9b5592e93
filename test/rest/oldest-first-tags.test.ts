/**
 * Oldest-first pages that appends cannot change keep their version tag (listing-cache.ts
 * `appendsLeaveAsItIs`): a page of a listing counted past 10,000 events (no total reported), ending
 * within 10,000, sorted oldest first. A sync client polling such a page gets 304 after new events,
 * and its kept response is sent again, while every page an append does change moves: newest-first
 * pages, a page reaching past 10,000 rows (appends fill it), a small listing (its X-Total grows),
 * and any page once what events show changes (a renamed author).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { actionCode } from '../../src/domain/vocabulary.js';
import { insertEvents } from '../helpers/bulk.js';
import { Fixtures } from '../helpers/fixtures.js';
import { get, ids } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const T0 = Date.UTC(2025, 0, 1);
const BIG = 10_050;

for (const dialect of DIALECTS) {
  describe(`oldest-first pages under appends (${dialect})`, () => {
    let server: TestServer;
    let aliceId: number;
    let bigId: number;
    let smallId: number;
    let token: string;
    let appended = 0;

    before(async () => {
      server = await startServer({ dialect });
      const f = new Fixtures(server.store);
      aliceId = (await f.user('alice')).id;
      bigId = (await f.project('acme/big', aliceId, 'public')).id;
      smallId = (await f.project('acme/small', aliceId, 'public')).id;
      token = await f.token(aliceId, ['read_api']);
      await insertEvents(
        server.store,
        Array.from({ length: BIG }, (_, i) => ({
          projectId: bigId,
          authorId: aliceId,
          action: 'created' as const,
          createdAt: T0 + i * 1000,
        })),
      );
      await insertEvents(
        server.store,
        Array.from({ length: 30 }, (_, i) => ({
          projectId: smallId,
          authorId: aliceId,
          action: 'created' as const,
          createdAt: T0 + i * 1000,
        })),
      );
    });
    after(() => server.close());

    /** One event appended to a project the way the recorder appends them. */
    const append = (projectId: number) =>
      server.store.transaction((tx) =>
        tx.events.append({
          project_id: projectId,
          author_id: aliceId,
          action: actionCode('closed'),
          target_type: null,
          target_id: null,
          issue_id: null,
          created_at: T0 + BIG * 1000 + ++appended * 1000,
        }),
      );

    /** The page twice: the second is tagged once its listing's count is known. */
    const settled = async (path: string) => {
      assert.equal((await get(server.url, path, token)).status, 200);
      const res = await get(server.url, path, token);
      assert.equal(res.status, 200);
      return res;
    };

    const poll = (path: string, tag: string) =>
      get(server.url, path, token, { 'if-none-match': tag });

    it('an oldest-first page of a big listing keeps its tag and its bytes after appends', async () => {
      const path = `/api/v4/projects/${bigId}/events?sort=asc&per_page=20&page=3`;
      const first = await settled(path);
      assert.equal(first.headers.get('x-total'), null);
      assert.equal(first.headers.get('x-next-page'), '4');
      await append(bigId);
      await append(bigId);
      const polled = await poll(path, first.headers.get('etag')!);
      assert.equal(polled.status, 304);
      assert.equal(polled.headers.get('etag'), first.headers.get('etag'));
      const again = await get(server.url, path, token);
      assert.equal(again.status, 200);
      assert.equal(again.text, first.text);
      assert.equal(again.headers.get('etag'), first.headers.get('etag'));
      assert.equal(again.headers.get('link'), first.headers.get('link'));
    });

    it('a newest-first page of the same listing moves with every append', async () => {
      const path = `/api/v4/projects/${bigId}/events?per_page=20&page=3`;
      const first = await settled(path);
      const row = await append(bigId);
      const polled = await poll(path, first.headers.get('etag')!);
      assert.equal(polled.status, 200);
      assert.notEqual(polled.headers.get('etag'), first.headers.get('etag'));
      // Every row moved down by one: the page now starts with the previous page's last row.
      assert.deepEqual(ids(polled.body).slice(1), ids(first.body).slice(0, 19));
      assert.ok(row.id > ids(first.body)[0]!);
    });

    it('an oldest-first page reaching past 10,000 rows is filled by appends, so it moves', async () => {
      // Offsets 10,000 to 10,099: the big project's last rows, and room for the new ones.
      const path = `/api/v4/projects/${bigId}/events?sort=asc&per_page=100&page=101`;
      const first = await settled(path);
      const before = ids(first.body);
      assert.ok(before.length < 100, 'the page is not full');
      const row = await append(bigId);
      const polled = await poll(path, first.headers.get('etag')!);
      assert.equal(polled.status, 200);
      assert.deepEqual(ids(polled.body), [...before, row.id]);
    });

    it('an oldest-first page of a small listing moves: its total grows', async () => {
      const path = `/api/v4/projects/${smallId}/events?sort=asc&per_page=20`;
      const first = await settled(path);
      assert.equal(first.headers.get('x-total'), '30');
      await append(smallId);
      const polled = await poll(path, first.headers.get('etag')!);
      assert.equal(polled.status, 200);
      assert.equal(polled.headers.get('x-total'), '31');
      assert.deepEqual(ids(polled.body), ids(first.body));
    });

    it('an oldest-first page of a big listing moves when what its events show changes', async () => {
      const path = `/api/v4/projects/${bigId}/events?sort=asc&per_page=20&page=2`;
      const first = await settled(path);
      await server.store.db
        .updateTable('users')
        .set({ name: 'Alice Renamed' })
        .where('id', '=', aliceId)
        .execute();
      const polled = await poll(path, first.headers.get('etag')!);
      assert.equal(polled.status, 200);
      assert.notEqual(polled.headers.get('etag'), first.headers.get('etag'));
      const authors = (polled.body as Array<{ author: { name: string } }>).map(
        (e) => e.author.name,
      );
      assert.deepEqual(new Set(authors), new Set(['Alice Renamed']));
      assert.deepEqual(ids(polled.body), ids(first.body));
    });
  });
}
