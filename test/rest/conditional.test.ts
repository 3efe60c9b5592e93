/**
 * Conditional polling on the event lists (http/conditional.ts, services/activity/listing-version):
 * strong ETags, 304 with no body and no listing query while nothing changed, a new tag after any
 * write that changes what the list shows (a new event, a membership, a visibility), and 304s that
 * do not spend the rate limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { TransferStore } from '../../src/store/transfer.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { type TwoProjects, startTwoProjects } from '../helpers/two-projects.js';

const STRONG_TAG = /^"[A-Za-z0-9_-]{32}"$/;

for (const dialect of DIALECTS) {
  describe(`ETag and 304 on event lists (${dialect})`, () => {
    let server: TestServer;
    let f: Fixtures;
    let ids: TwoProjects['ids'];
    let tokens: TwoProjects['tokens'];
    let listings: () => number;

    before(async () => {
      // No page cache: every 200 runs the listing, so a 304 that runs none is visible.
      ({ server, f, ids, tokens, listings } = await startTwoProjects(
        dialect,
        { pageCache: false },
        1,
      ));
    });
    after(() => server.close());

    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/api/v4${path}`, { headers });

    async function tagOf(path: string, headers: Record<string, string> = {}) {
      const response = await get(path, headers);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-poll-interval'), '60');
      const tag = response.headers.get('etag');
      assert.match(tag ?? '', STRONG_TAG);
      return { tag: tag!, body: (await response.json()) as { id: number }[] };
    }

    const forms = [
      ['/projects/acme%2Fapi/events', {}],
      [`/projects/${0}/events`, {}],
      ['/users/alice/events', {}],
      ['/acme%2Fapi/events', {}],
      ['/events?scope=all', 'alice'],
    ] as const;

    it('every list form: the same tag again is a 304 with no body and no listing query', async () => {
      for (const [template, who] of forms) {
        const path = template.replace('/0/', `/${ids.pub}/`);
        const auth: Record<string, string> =
          typeof who === 'string' ? { 'private-token': tokens[who as 'alice'] } : {};
        const { tag } = await tagOf(path, auth);
        const before = listings();
        const response = await get(path, { ...auth, 'if-none-match': tag });
        assert.equal(response.status, 304, path);
        assert.equal(await response.text(), '');
        assert.equal(response.headers.get('etag'), tag);
        assert.equal(response.headers.get('x-poll-interval'), '60');
        assert.equal(response.headers.get('content-type'), null);
        assert.equal(response.headers.get('link'), null);
        assert.equal(
          listings(),
          before,
          `${path}: a 304 ran ${listings() - before} listing queries`,
        );
        // A list of tags, weak forms and `*` match too; another tag does not.
        const listed = await get(path, { ...auth, 'if-none-match': `"x", W/${tag}` });
        assert.equal(listed.status, 304);
        assert.equal((await get(path, { ...auth, 'if-none-match': '*' })).status, 304);
        const other = await get(path, { ...auth, 'if-none-match': '"nope"' });
        assert.equal(other.status, 200);
        assert.equal(other.headers.get('etag'), tag);
        await other.arrayBuffer();
      }
    });

    it('tags differ by viewer and by parameters', async () => {
      const path = '/users/alice/events';
      const anonymous = await tagOf(path);
      const alice = await tagOf(path, { 'private-token': tokens.alice });
      const filtered = await tagOf(`${path}?action=created`);
      assert.notEqual(anonymous.tag, alice.tag);
      assert.notEqual(anonymous.tag, filtered.tag);
      // Alice sees her private project's event, anonymous does not: her tag must not serve them.
      const response = await get(path, { 'if-none-match': alice.tag });
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as unknown[]).length, 1);
    });

    it('a new event in the listing: 200 with a new tag and the event', async () => {
      const path = '/projects/acme%2Fapi/events';
      const first = await tagOf(path);
      const event = await f.event({
        projectId: ids.pub,
        authorId: ids.alice,
        action: 'closed',
        createdAt: 2,
      });
      const response = await get(path, { 'if-none-match': first.tag });
      assert.equal(response.status, 200);
      const tag = response.headers.get('etag');
      assert.match(tag ?? '', STRONG_TAG);
      assert.notEqual(tag, first.tag);
      const body = (await response.json()) as { id: number }[];
      assert.equal(body[0]!.id, event.id);
      assert.equal(body.length, first.body.length + 1);
    });

    it('a membership change: the non-member’s tag no longer matches, the private event appears', async () => {
      const path = '/users/alice/events';
      const auth = { 'private-token': tokens.bob };
      const first = await tagOf(path, auth);
      assert.equal((await get(path, { ...auth, 'if-none-match': first.tag })).status, 304);
      await f.member(ids.priv, ids.bob, ACCESS_LEVELS.developer);
      const response = await get(path, { ...auth, 'if-none-match': first.tag });
      assert.equal(response.status, 200);
      assert.notEqual(response.headers.get('etag'), first.tag);
      const body = (await response.json()) as { project_id: number }[];
      assert.ok(body.some((e) => e.project_id === ids.priv));
      assert.equal(body.length, first.body.length + 1);
    });

    it('a visibility change: the anonymous tag no longer matches, the event is gone', async () => {
      const path = '/users/alice/events';
      const first = await tagOf(path);
      assert.ok(first.body.length > 0);
      await server.store.db
        .updateTable('projects')
        .set({ visibility: 'private' })
        .where('id', '=', ids.pub)
        .execute();
      const response = await get(path, { 'if-none-match': first.tag });
      assert.equal(response.status, 200);
      assert.notEqual(response.headers.get('etag'), first.tag);
      assert.deepEqual(await response.json(), []);
      await server.store.db
        .updateTable('projects')
        .set({ visibility: 'public' })
        .where('id', '=', ids.pub)
        .execute();
    });

    it('writes outside what lists show (a new token) keep the tag', async () => {
      const path = '/projects/acme%2Fapi/events';
      const first = await tagOf(path);
      await f.token(ids.bob, ['api']);
      assert.equal((await get(path, { 'if-none-match': first.tag })).status, 304);
    });

    it('bulk loads set the row triggers aside only inside their transaction, and move the version', async () => {
      const transfer = new TransferStore(server.store);
      const start = (await server.store.events.head()).version;
      await transfer.importTransaction(async () => undefined);
      const loaded = (await server.store.events.head()).version;
      // SQLite moves it once for the whole load; PostgreSQL's statement triggers move it per write.
      if (dialect === 'sqlite') assert.equal(loaded, start + 1);
      await assert.rejects(
        transfer.importTransaction(async () => {
          throw new Error('load failed');
        }),
        /load failed/,
      );
      // The triggers are in place after a commit and after a rollback. An append leaves the
      // version (listings follow appended events by id); an event written below the newest one
      // (which the change feed would not see) and a changed name move it.
      const version = async () => (await server.store.events.head()).version;
      const event = (createdAt: number) =>
        f.event({ projectId: ids.pub, authorId: ids.alice, action: 'created', createdAt });
      const spare = await event(2);
      await event(3);
      assert.equal(await version(), loaded);
      // An id below the newest, freed (a deletion moves the version itself), is written again.
      await server.store.db.deleteFrom('events').where('id', '=', spare.id).execute();
      const freed = await version();
      await server.store.db
        .insertInto('events')
        .values({
          id: spare.id,
          project_id: ids.pub,
          author_id: ids.alice,
          action: 1,
          target_type: null,
          target_id: null,
          issue_id: null,
          created_at: 4,
        })
        .execute();
      assert.equal(await version(), freed + 1);
      await server.store.db
        .updateTable('projects')
        .set({ name: 'API' })
        .where('id', '=', ids.pub)
        .execute();
      assert.equal(await version(), freed + 2);
      // The hourly last-activity update an append makes shows in no listing.
      await server.store.db
        .updateTable('projects')
        .set({ last_activity_at: 5 })
        .where('id', '=', ids.pub)
        .execute();
      assert.equal(await version(), freed + 2);
      // A push payload for an event that is not the newest changes what an old event shows.
      await server.store.db
        .insertInto('push_event_payloads')
        .values({
          event_id: spare.id,
          action: 'pushed',
          ref_type: 'branch',
          ref: 'main',
          commit_from: null,
          commit_to: null,
          commit_count: 0,
          commit_title: null,
          commits: '[]',
        })
        .execute();
      assert.equal(await version(), freed + 3);
      await server.store.db
        .deleteFrom('push_event_payloads')
        .where('event_id', '=', spare.id)
        .execute();
      await server.store.db.deleteFrom('events').where('id', '=', spare.id).execute();
    });

    it('a revoked token is refused, never answered 304', async () => {
      const path = '/events';
      const token = await f.token(ids.alice, ['read_user']);
      const { tag } = await tagOf(path, { 'private-token': token });
      await server.store.db
        .updateTable('personal_access_tokens')
        .set({ revoked: 1 })
        .where('user_id', '=', ids.alice)
        .where('scopes', 'like', '%read_user%')
        .execute();
      const response = await get(path, { 'private-token': token, 'if-none-match': tag });
      assert.equal(response.status, 401);
    });
  });

  describe(`304s do not spend the rate limit (${dialect})`, () => {
    let server: TestServer;
    let token = '';

    before(async () => {
      server = await startServer({
        dialect,
        config: { rateLimit: 3 },
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          const project = await f.project('acme/api', alice.id, 'public');
          await f.event({
            projectId: project.id,
            authorId: alice.id,
            action: 'created',
            createdAt: 1,
          });
          token = await f.token(alice.id, ['api']);
        },
      });
    });
    after(() => server.close());

    it('ten 304s with a budget of three, then the budget is still there', async () => {
      const url = `${server.url}/api/v4/projects/acme%2Fapi/events`;
      const auth = { 'private-token': token };
      const first = await fetch(url, { headers: auth });
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('x-ratelimit-remaining'), '2');
      const tag = first.headers.get('etag')!;
      await first.arrayBuffer();
      for (let i = 0; i < 10; i++) {
        const response = await fetch(url, { headers: { ...auth, 'if-none-match': tag } });
        assert.equal(response.status, 304, `poll ${i}`);
        assert.equal(response.headers.get('x-ratelimit-remaining'), '2');
      }
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await fetch(url, { headers: auth })).status);
      assert.deepEqual(statuses, [200, 200, 429]);
      // Over the limit, a conditional request is refused like any other.
      const refused = await fetch(url, { headers: { ...auth, 'if-none-match': tag } });
      assert.equal(refused.status, 429);
    });
  });
}
