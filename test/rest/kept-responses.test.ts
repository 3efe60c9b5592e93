/**
 * Responses kept under their version tag (http/conditional.ts): a repeated list request is sent
 * the bytes and body headers of the response its tag stands for, without the listing; never
 * another viewer's, never an older version's, never one whose URL holds a credential, and not at
 * all with the page cache off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { type TwoProjects, startTwoProjects } from '../helpers/two-projects.js';

/** Headers a list's body comes with (the rest are per request: request id, CORS). */
const BODY_HEADERS = [
  'content-type',
  'etag',
  'link',
  'x-page',
  'x-per-page',
  'x-total',
  'x-total-pages',
  'x-next-page',
  'x-prev-page',
  'x-poll-interval',
];

async function metric(server: TestServer, labels: string): Promise<number> {
  const { body } = await server.services.metrics.render();
  const line = body
    .split('\n')
    .find((l) => l.startsWith(`pulsegate_cache_lookups_total{${labels}}`));
  return Number(line?.split(' ').pop() ?? NaN);
}

for (const dialect of DIALECTS) {
  for (const pageCache of [true, false]) {
    describe(`kept responses (${dialect}, page cache ${pageCache ? 'on' : 'off'})`, () => {
      let server: TestServer;
      let f: Fixtures;
      let ids: TwoProjects['ids'];
      let tokens: TwoProjects['tokens'];
      let listings: () => number;

      before(async () => {
        ({ server, f, ids, tokens, listings } = await startTwoProjects(dialect, { pageCache }, 3));
      });
      after(() => server.close());

      const get = async (path: string, headers: Record<string, string> = {}) => {
        const response = await fetch(`${server.url}/api/v4${path}`, { headers });
        const body = Buffer.from(await response.arrayBuffer());
        const kept: Record<string, string | null> = {};
        for (const name of BODY_HEADERS) kept[name] = response.headers.get(name);
        return { status: response.status, body, headers: kept, response };
      };

      it('the same request again: the same bytes and body headers, no listing query (page cache on only)', async () => {
        const path = `/users/alice/events?per_page=2&page=2`;
        const auth = { 'private-token': tokens.alice };
        const first = await get(path, auth);
        assert.equal(first.status, 200);
        assert.equal(JSON.parse(first.body.toString()).length, 2);
        assert.equal(first.headers['x-total'], '6');
        const [before, hits] = [listings(), await metric(server, 'cache="response",result="hit"')];
        const again = await get(path, auth);
        assert.equal(again.status, 200);
        assert.deepEqual(again.body, first.body);
        assert.deepEqual(again.headers, first.headers);
        assert.notEqual(
          again.response.headers.get('x-request-id'),
          first.response.headers.get('x-request-id'),
        );
        if (pageCache) {
          assert.equal(listings(), before, 'a kept response runs no listing query');
          assert.equal(await metric(server, 'cache="response",result="hit"'), hits + 1);
        } else {
          assert.ok(listings() > before, 'with the page cache off every 200 runs the listing');
          assert.equal(await metric(server, 'cache="response",result="hit"'), 0);
          assert.equal(await metric(server, 'cache="response",result="miss"'), 0);
        }
      });

      it("one viewer's kept response never answers another viewer", async () => {
        const path = '/users/alice/events';
        const auth = { 'private-token': tokens.alice };
        const alice = await get(path, auth);
        assert.equal(JSON.parse((await get(path, auth)).body.toString()).length, 6);
        // Anonymous and bob see only the public project's three events.
        const others: Record<string, string>[] = [{}, { 'private-token': tokens.bob }];
        for (const headers of others) {
          const other = await get(path, headers);
          assert.equal(other.status, 200);
          assert.equal(JSON.parse(other.body.toString()).length, 3);
          assert.notEqual(other.headers.etag, alice.headers.etag);
        }
        assert.equal(JSON.parse((await get(path, auth)).body.toString()).length, 6);
      });

      it('a write moves the version: the next request shows it, then is kept again', async () => {
        const path = `/projects/${ids.pub}/events?per_page=1`;
        const old = await get(path);
        assert.equal((await get(path)).headers.etag, old.headers.etag);
        const row = await f.event({
          projectId: ids.pub,
          authorId: ids.alice,
          action: 'closed',
          createdAt: 10,
        });
        const fresh = await get(path);
        assert.equal(fresh.status, 200);
        assert.deepEqual(
          (JSON.parse(fresh.body.toString()) as { id: number }[]).map((e) => e.id),
          [row.id],
        );
        assert.notEqual(fresh.headers.etag, old.headers.etag);
        assert.equal(fresh.headers['x-total'], '4');
        const before = listings();
        assert.deepEqual((await get(path)).body, fresh.body);
        if (pageCache) assert.equal(listings(), before);
      });

      it("a write to another project keeps this project's response and tag; its own write does not", async () => {
        const path = `/projects/${ids.pub}/events?per_page=2`;
        const auth = { 'private-token': tokens.alice };
        const old = await get(path, auth);
        await f.event({
          projectId: ids.priv,
          authorId: ids.alice,
          action: 'closed',
          createdAt: 20,
        });
        const [before, hits] = [listings(), await metric(server, 'cache="response",result="hit"')];
        const same = await get(path, auth);
        assert.deepEqual(same.body, old.body);
        assert.equal(same.headers.etag, old.headers.etag);
        assert.equal(
          (await get(path, { ...auth, 'if-none-match': old.headers.etag! })).status,
          304,
        );
        if (pageCache) {
          assert.equal(listings(), before);
          assert.equal(await metric(server, 'cache="response",result="hit"'), hits + 1);
        }
        const row = await f.event({
          projectId: ids.pub,
          authorId: ids.alice,
          action: 'closed',
          createdAt: 21,
        });
        const fresh = await get(path, { ...auth, 'if-none-match': old.headers.etag! });
        assert.equal(fresh.status, 200);
        assert.notEqual(fresh.headers.etag, old.headers.etag);
        assert.equal((JSON.parse(fresh.body.toString()) as { id: number }[])[0]!.id, row.id);
      });

      it('a retitled issue and a renamed author show at once, in kept and cached pages alike', async () => {
        const issue = await f.issue(ids.pub, ids.alice, 'Old title');
        await f.event({
          projectId: ids.pub,
          authorId: ids.alice,
          action: 'created',
          targetType: 'Issue',
          targetId: issue.id,
          issueId: issue.id,
          createdAt: 30,
        });
        const shown = async (path: string) => {
          const response = await get(path);
          assert.equal(response.status, 200);
          const [first] = JSON.parse(response.body.toString()) as {
            target_title: string;
            author: { name: string };
          }[];
          return {
            title: first!.target_title,
            author: first!.author.name,
            etag: response.headers.etag,
          };
        };
        // Page 1 through two URLs: one answered from its kept response, one from the listing's
        // cached page (a URL never asked before).
        const path = `/projects/${ids.pub}/events?per_page=3`;
        const old = await shown(path);
        assert.deepEqual({ ...(await shown(path)), etag: null }, { ...old, etag: null });
        assert.equal(old.title, 'Old title');
        await server.store.db
          .updateTable('issues')
          .set({ title: 'New title' })
          .where('id', '=', issue.id)
          .execute();
        const retitled = await shown(path);
        assert.equal(retitled.title, 'New title');
        assert.notEqual(retitled.etag, old.etag);
        assert.equal((await shown(`${path}&page=1`)).title, 'New title');
        await server.store.db
          .updateTable('users')
          .set({ name: 'Alice Renamed' })
          .where('id', '=', ids.alice)
          .execute();
        assert.equal((await shown(path)).author, 'Alice Renamed');
        assert.equal((await shown(`${path}&page=1`)).author, 'Alice Renamed');
        assert.equal((await shown(`${path}&sort=desc`)).author, 'Alice Renamed');
      });

      it('a HEAD keeps nothing, and is answered with the headers of the GET', async () => {
        const path = `/projects/${ids.pub}/events?per_page=3&sort=asc`;
        const head = await fetch(`${server.url}/api/v4${path}`, { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(await head.text(), '');
        const body = await get(path);
        assert.equal(JSON.parse(body.body.toString()).length, 3);
        assert.equal(body.headers.etag, head.headers.get('etag'));
        const headAgain = await fetch(`${server.url}/api/v4${path}`, { method: 'HEAD' });
        assert.equal(headAgain.status, 200);
        assert.equal(await headAgain.text(), '');
        assert.equal(headAgain.headers.get('x-total'), body.headers['x-total']);
      });

      it('a repeated request is answered before its listing is resolved again (page cache on only)', async () => {
        const { activity } = server.services;
        const read = activity.read.bind(activity) as typeof activity.read;
        let resolved = 0;
        activity.read = ((...args: Parameters<typeof read>) => {
          resolved++;
          return read(...args);
        }) as typeof activity.read;
        try {
          const auth = { 'private-token': tokens.alice };
          for (const path of [
            `/projects/${ids.priv}/events?per_page=2`,
            '/users/alice/events?per_page=4',
            '/events?per_page=3&scope=all',
          ]) {
            const first = await get(path, auth);
            assert.equal(first.status, 200);
            const before = resolved;
            const again = await get(path, auth);
            assert.deepEqual(again.body, first.body);
            assert.deepEqual(again.headers, first.headers);
            const poll = await get(path, { ...auth, 'if-none-match': first.headers.etag! });
            assert.equal(poll.status, 304);
            assert.equal(resolved - before, pageCache ? 0 : 2, path);
          }
        } finally {
          activity.read = read;
        }
      });

      it('a kept response answers only what the route itself would: scopes, credentials and access are checked again', async () => {
        const path = `/projects/${ids.priv}/events?per_page=2&sort=asc`;
        const auth = { 'private-token': tokens.alice };
        const kept = await get(path, auth);
        assert.equal(kept.status, 200);
        assert.deepEqual((await get(path, auth)).body, kept.body);
        // The same user and URL with a token the route refuses: the route's 403, never the 200.
        const userOnly = await f.token(ids.alice, ['read_user']);
        const refused = await get(path, { 'private-token': userOnly });
        assert.equal(refused.status, 403);
        assert.equal(
          JSON.parse(refused.body.toString()).error,
          'insufficient_scope',
          refused.body.toString(),
        );
        const revoked = await f.token(ids.alice, ['api'], { revoked: true });
        assert.equal((await get(path, { 'private-token': revoked })).status, 401);
        assert.equal((await get(path)).status, 404);
        // Alice leaves the private project: the kept response stands for a listing she may no
        // longer read, and the route answers as for any outsider.
        await server.store.db
          .deleteFrom('project_members')
          .where('project_id', '=', ids.priv)
          .where('user_id', '=', ids.alice)
          .execute();
        const gone = await get(path, { ...auth, 'if-none-match': kept.headers.etag! });
        assert.equal(gone.status, 404);
        assert.deepEqual(JSON.parse(gone.body.toString()), { message: '404 Project Not Found' });
      });

      it('a response whose URL holds a credential is never kept', async () => {
        const path = `/users/alice/events?private_token=${tokens.alice}`;
        const first = await get(path);
        assert.equal(first.response.headers.get('cache-control'), 'no-store');
        const [hits, misses] = [
          await metric(server, 'cache="response",result="hit"'),
          await metric(server, 'cache="response",result="miss"'),
        ];
        const again = await get(path);
        assert.deepEqual(again.body, first.body);
        assert.equal(await metric(server, 'cache="response",result="hit"'), hits);
        // Not even looked up: nothing is kept under such a URL.
        assert.equal(await metric(server, 'cache="response",result="miss"'), misses);
      });
    });
  }
}

describe('kept responses: two servers in one process', () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) await server.close();
  });

  it('never answer from each other, even with the same external URL, URL, viewer and version', async () => {
    for (const action of ['created', 'closed'] as const) {
      servers.push(
        await startServer({
          config: { externalUrl: 'http://pulsegate.test' },
          seed: async (store) => {
            const f = new Fixtures(store);
            const alice = await f.user('alice');
            const project = await f.project('acme/api', alice.id, 'public');
            await f.event({ projectId: project.id, authorId: alice.id, action, createdAt: 1 });
          },
        }),
      );
    }
    const [a, b] = servers as [TestServer, TestServer];
    // The same writes on both databases: the same listing version, so the same tag and key.
    assert.equal((await a.store.events.head()).version, (await b.store.events.head()).version);
    const path = '/api/v4/projects/acme%2Fapi/events';
    const actions = async (server: TestServer) => {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 200);
      return {
        tag: response.headers.get('etag'),
        actions: ((await response.json()) as { action_name: string }[]).map((e) => e.action_name),
      };
    };
    const first = await actions(a);
    assert.deepEqual((await actions(a)).actions, ['created']);
    const other = await actions(b);
    assert.equal(other.tag, first.tag);
    assert.deepEqual(other.actions, ['closed']);
    assert.equal(await metric(b, 'cache="response",result="hit"'), 0);
  });
});
