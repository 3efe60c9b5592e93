/**
 * The starred and followed feeds on the wire (issue 33): REST `scope=starred|followed` with exact
 * entries and headers, 304 on repeat, a star or follow taken or dropped by another process changing
 * the next answer (never a stale 304 or a kept body), unknown scopes still ignored, the Atom feeds
 * with the dashboard's credentials, and `eventCreated(scope: FOLLOWED | STARRED)` following
 * follows and stars taken or dropped while subscribed.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { sql } from 'kysely';
import { type Store, openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import {
  EVENT_FIELDS,
  type LiveClient,
  liveClient,
  sleep,
  untilSubscribed,
  writeEvent,
} from '../graphql/live-support.js';

const STRONG_TAG = /^"[A-Za-z0-9_-]{32}"$/;

for (const dialect of DIALECTS) {
  describe(`starred and followed feeds on the wire (${dialect})`, () => {
    let server: TestServer;
    /** Another connection: stars and follows written as another process writes them. */
    let other: Store;
    let f: Fixtures;
    let token: string;
    const ids = { alice: 0, bob: 0, carol: 0, dave: 0, pub: 0, secret: 0, hidden: 0, side: 0 };
    /** Event ids by name. */
    const ev = {
      bobPub: 0,
      carolPub: 0,
      bobPush: 0,
      bobQuiet: 0,
      bobSecret: 0,
      bobHidden: 0,
      carolSide: 0,
      daveSide: 0,
    };
    const clients: LiveClient[] = [];

    before(async () => {
      server = await startServer({ dialect });
      other = await openStore(server.config.databaseUrl, { migrate: false });
      f = new Fixtures(server.store);
      ids.alice = (await f.user('alice')).id;
      ids.bob = (await f.user('bob')).id;
      ids.carol = (await f.user('carol')).id;
      ids.dave = (await f.user('dave', { privateProfile: true })).id;
      ids.pub = (await f.project('acme/pub', ids.alice, 'public')).id;
      ids.secret = (await f.project('acme/secret', ids.bob, 'private')).id;
      ids.hidden = (await f.project('acme/hidden', ids.bob, 'private')).id;
      ids.side = (await f.project('acme/side', ids.carol, 'public')).id;
      await f.member(ids.secret, ids.alice, ACCESS_LEVELS.guest);
      token = await f.token(ids.alice, ['read_api']);
      const at = (n: number) => Date.UTC(2026, 0, 1 + n);
      const issue = await f.issue(ids.secret, ids.bob, 'Quiet', true);
      ev.bobPub = (
        await f.event({ projectId: ids.pub, authorId: ids.bob, action: 'joined', createdAt: at(1) })
      ).id;
      ev.carolPub = (
        await f.event({
          projectId: ids.pub,
          authorId: ids.carol,
          action: 'created',
          createdAt: at(2),
        })
      ).id;
      // A guest of a private project: no pushes, no confidential issue of someone else's.
      ev.bobPush = (
        await f.event({
          projectId: ids.secret,
          authorId: ids.bob,
          action: 'pushed',
          createdAt: at(3),
          push: { commits: [{ id: 'a'.repeat(40), message: 'Secret fix' }] },
        })
      ).id;
      ev.bobQuiet = (
        await f.event({
          projectId: ids.secret,
          authorId: ids.bob,
          action: 'created',
          targetType: 'Issue',
          targetId: issue.id,
          issueId: issue.id,
          createdAt: at(4),
        })
      ).id;
      ev.bobSecret = (
        await f.event({
          projectId: ids.secret,
          authorId: ids.bob,
          action: 'joined',
          createdAt: at(5),
        })
      ).id;
      ev.bobHidden = (
        await f.event({
          projectId: ids.hidden,
          authorId: ids.bob,
          action: 'joined',
          createdAt: at(6),
        })
      ).id;
      ev.carolSide = (
        await f.event({
          projectId: ids.side,
          authorId: ids.carol,
          action: 'created',
          createdAt: at(7),
        })
      ).id;
      ev.daveSide = (
        await f.event({
          projectId: ids.side,
          authorId: ids.dave,
          action: 'created',
          createdAt: at(8),
        })
      ).id;
      // Alice starred pub, secret and hidden (which she cannot read), and follows bob and dave
      // (a private profile).
      for (const projectId of [ids.pub, ids.secret, ids.hidden]) await star(projectId);
      for (const followee of [ids.bob, ids.dave]) await follow(followee);
    });
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.dispose()));
      // The next test counts its own subscriptions.
      for (let i = 0; i < 500 && server.services.live.size > 0; i++) await sleep(10);
    });
    after(async () => {
      await other.close();
      await server.close();
    });

    async function star(projectId: number) {
      await other.db
        .insertInto('project_stars')
        .values({ user_id: ids.alice, project_id: projectId, created_at: Date.now() })
        .execute();
    }
    async function unstar(projectId: number) {
      await other.db
        .deleteFrom('project_stars')
        .where('user_id', '=', ids.alice)
        .where('project_id', '=', projectId)
        .execute();
    }
    async function follow(followee: number) {
      await other.db
        .insertInto('user_follows')
        .values({ follower_id: ids.alice, followee_id: followee, created_at: Date.now() })
        .execute();
    }
    async function unfollow(followee: number) {
      await other.db
        .deleteFrom('user_follows')
        .where('follower_id', '=', ids.alice)
        .where('followee_id', '=', followee)
        .execute();
    }

    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, { headers: { 'private-token': token, ...headers } });

    async function list(path: string) {
      const response = await get(path);
      assert.equal(response.status, 200, path);
      return { response, body: (await response.json()) as Array<Record<string, unknown>> };
    }

    it('scope=starred: the readable starred projects, with the entries /projects/:id/events gives', async () => {
      const { response, body } = await list('/api/v4/events?scope=starred&per_page=2');
      // Newest first; bob's push and the confidential issue are hidden from a guest; `hidden` is
      // starred but not readable.
      assert.deepEqual(
        body.map((e) => e.id),
        [ev.bobSecret, ev.carolPub],
      );
      assert.equal(response.headers.get('x-total'), '3');
      assert.equal(response.headers.get('x-total-pages'), '2');
      assert.equal(response.headers.get('x-per-page'), '2');
      assert.equal(response.headers.get('x-page'), '1');
      assert.equal(response.headers.get('x-next-page'), '2');
      assert.equal(response.headers.get('x-prev-page'), '');
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.match(response.headers.get('etag') ?? '', STRONG_TAG);
      const link = response.headers.get('link') ?? '';
      assert.match(link, /scope=starred/);
      assert.match(link, /rel="next"/);
      // Each entry is exactly the project listing's entry for the same event.
      const project = await list(`/api/v4/projects/${ids.secret}/events`);
      assert.deepEqual(
        body[0],
        project.body.find((e) => e.id === ev.bobSecret),
      );
      const second = await list('/api/v4/events?scope=starred&per_page=2&page=2');
      assert.deepEqual(
        second.body.map((e) => e.id),
        [ev.bobPub],
      );
    });

    it('scope=followed: the followed users whose profile is readable, in readable projects', async () => {
      const { response, body } = await list('/api/v4/events?scope=followed');
      // Bob's, but not in `hidden`, not his push nor his confidential issue; nothing of dave's
      // (a private profile).
      assert.deepEqual(
        body.map((e) => e.id),
        [ev.bobSecret, ev.bobPub],
      );
      assert.equal(response.headers.get('x-total'), '2');
      const oldest = await list('/api/v4/events?scope=followed&sort=asc&action=joined');
      assert.deepEqual(
        oldest.body.map((e) => e.id),
        [ev.bobPub, ev.bobSecret],
      );
      const none = await list('/api/v4/events?scope=followed&target_type=issue');
      assert.deepEqual(none.body, []);
      assert.equal(none.response.headers.get('x-total'), '0');
    });

    it('unknown scopes are still ignored (the caller’s own events), and a token is required', async () => {
      const own = await list('/api/v4/events');
      const bogus = await list('/api/v4/events?scope=starredx');
      assert.deepEqual(bogus.body, own.body);
      const anonymous = await fetch(`${server.url}/api/v4/events?scope=starred`);
      assert.equal(anonymous.status, 401);
      assert.deepEqual(await anonymous.json(), { message: '401 Unauthorized' });
    });

    it('a repeat is a 304; a star or a follow by another process makes the next answer new', async () => {
      for (const [path, take, drop, shows] of [
        [
          '/api/v4/events?scope=starred',
          () => star(ids.side),
          () => unstar(ids.side),
          ev.carolSide,
        ],
        [
          '/api/v4/events?scope=followed',
          () => follow(ids.carol),
          () => unfollow(ids.carol),
          ev.carolPub,
        ],
      ] as const) {
        const first = await get(path);
        const tag = first.headers.get('etag')!;
        const before = ((await first.json()) as Array<{ id: number }>).map((e) => e.id);
        assert.ok(!before.includes(shows));
        const again = await get(path, { 'if-none-match': tag });
        assert.equal(again.status, 304, path);
        assert.equal(await again.text(), '');

        await take();
        const taken = await get(path, { 'if-none-match': tag });
        assert.equal(taken.status, 200, `${path} after a star or follow`);
        const after = ((await taken.json()) as Array<{ id: number }>).map((e) => e.id);
        assert.ok(after.includes(shows), `${path} lists the new source's events`);
        assert.notEqual(taken.headers.get('etag'), tag);
        assert.equal(taken.headers.get('x-total'), String(after.length));

        await drop();
        // The kept answer of the first request is not sent again either: the mark moved back.
        const dropped = await get(path);
        assert.equal(dropped.status, 200);
        assert.deepEqual(
          ((await dropped.json()) as Array<{ id: number }>).map((e) => e.id),
          before,
        );
      }
    });

    it('through the API: POST /projects/:id/star and /users/:id/follow change the feeds at once', async () => {
      const writer = await f.token(ids.alice, ['api']);
      const post = (path: string) =>
        fetch(`${server.url}/api/v4${path}`, {
          method: 'POST',
          headers: { 'private-token': writer },
        });
      for (const [path, take, drop, shows] of [
        [
          '/api/v4/events?scope=starred',
          `/projects/${ids.side}/star`,
          `/projects/${ids.side}/unstar`,
          ev.carolSide,
        ],
        [
          '/api/v4/events?scope=followed',
          `/users/${ids.carol}/follow`,
          `/users/${ids.carol}/unfollow`,
          ev.carolPub,
        ],
      ] as const) {
        const first = await get(path);
        const tag = first.headers.get('etag')!;
        const before = ((await first.json()) as Array<{ id: number }>).map((e) => e.id);
        assert.equal((await post(take)).status, 201, take);
        const taken = await get(path, { 'if-none-match': tag });
        assert.equal(taken.status, 200);
        const after = ((await taken.json()) as Array<{ id: number }>).map((e) => e.id);
        assert.ok(after.includes(shows) && !before.includes(shows), path);
        assert.equal((await post(drop)).status, 201, drop);
        const dropped = await get(path, { 'if-none-match': taken.headers.get('etag')! });
        assert.equal(dropped.status, 200);
        assert.deepEqual(
          ((await dropped.json()) as Array<{ id: number }>).map((e) => e.id),
          before,
        );
      }
    });

    it('Atom: /dashboard/starred.atom and /dashboard/followed.atom with the dashboard’s credentials', async () => {
      for (const [feed, expected] of [
        ['starred', [ev.bobSecret, ev.carolPub, ev.bobPub]],
        ['followed', [ev.bobSecret, ev.bobPub]],
      ] as const) {
        const response = await get(`/dashboard/${feed}.atom`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
        const xml = await response.text();
        assert.match(xml, new RegExp(`<id>${server.url}/dashboard/${feed}</id>`));
        assert.match(
          xml,
          new RegExp(
            `<link rel="alternate" type="text/html" href="${server.url}/dashboard/activity/${feed}"`,
          ),
        );
        // The entries are the API's listing, newest first.
        const api = await list(`/api/v4/events?scope=${feed}`);
        assert.deepEqual(
          [...xml.matchAll(/<id>tag:[^<]*:Event\/(\d+)<\/id>/g)].map((m) => Number(m[1])),
          api.body.map((e) => e.id),
        );
        assert.deepEqual(
          api.body.map((e) => e.id),
          expected,
        );
        const repeat = await get(`/dashboard/${feed}.atom`, {
          'if-none-match': response.headers.get('etag')!,
        });
        assert.equal(repeat.status, 304);
        const anonymous = await fetch(`${server.url}/dashboard/${feed}.atom`);
        assert.equal(anonymous.status, 401);
        assert.equal(await anonymous.text(), '401 Unauthorized\n');
      }
    });

    it('GraphQL: followedUsersActivity(target:) as GitLab’s tabs; activity only on the current user', async () => {
      const post = (query: string) =>
        fetch(`${server.url}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'private-token': token },
          body: JSON.stringify({ query }),
        });
      const ask = async (query: string) => {
        const response = await post(query);
        assert.equal(response.status, 200);
        return (await response.json()) as { data: Record<string, unknown>; errors?: unknown };
      };
      const target = async (value: string) => {
        const answer = await ask(
          `{ currentUser { activity { followedUsersActivity(target: ${value}) { totalCount nodes { databaseId } } } } }`,
        );
        assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
        const connection = (
          answer.data.currentUser as {
            activity: {
              followedUsersActivity: { totalCount: number; nodes: { databaseId: number }[] };
            };
          }
        ).activity.followedUsersActivity;
        assert.equal(connection.totalCount, connection.nodes.length);
        return connection.nodes.map((n) => n.databaseId);
      };
      assert.deepEqual(await target('ALL'), [ev.bobSecret, ev.bobPub]);
      assert.deepEqual(await target('TEAM'), [ev.bobSecret, ev.bobPub]);
      // Bob's push is in a project where alice is a guest: hidden, as in every listing.
      assert.deepEqual(await target('PUSH'), []);
      assert.deepEqual(await target('ISSUE'), []);
      assert.deepEqual(await target('WIKI'), []);
      const other = await ask('{ user(username: "bob") { username activity { __typename } } }');
      assert.deepEqual(other.data, { user: { username: 'bob', activity: null } });
      // An unknown target is a validation error (400), as any bad document.
      const bad = await post(
        '{ currentUser { activity { followedUsersActivity(target: NOPE) { totalCount } } } }',
      );
      assert.equal(bad.status, 400);
      assert.match(JSON.stringify(await bad.json()), /NOPE/);
    });

    it('random parameters with scope=starred|followed never a 5xx; valid ones mixed in answer exactly', async () => {
      const expected = {
        starred: [ev.bobSecret, ev.carolPub, ev.bobPub],
        followed: [ev.bobSecret, ev.bobPub],
      };
      const junk = fc.constantFrom(
        'created',
        'pushed',
        'issue',
        'merge_request',
        'bogus',
        'asc',
        'desc',
        '2026-01-02',
        '2026-02-30',
        '-1',
        '0',
        '101',
        '99999999999999999999',
        '%ZZ',
        '%00',
        '',
        'a&b',
      );
      const names = fc.constantFrom(
        'action',
        'target_type',
        'before',
        'after',
        'sort',
        'page',
        'per_page',
        'scope',
        'action[]',
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('starred' as const, 'followed' as const),
          fc.array(fc.tuple(names, junk), { maxLength: 4 }),
          fc.boolean(),
          async (scope, pairs, valid) => {
            const path = valid
              ? `/api/v4/events?scope=${scope}`
              : `/api/v4/events?scope=${scope}&${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`;
            const response = await get(path);
            const text = await response.text();
            assert.ok(response.status < 500, `${path}: ${response.status} ${text}`);
            assert.equal(response.headers.get('content-type'), 'application/json', path);
            const body = JSON.parse(text) as unknown;
            if (response.status >= 400) {
              const error = body as { message?: unknown; error?: unknown };
              assert.ok(typeof error.message === 'string' || typeof error.error === 'string', text);
            } else {
              assert.ok(Array.isArray(body), text);
            }
            if (valid) {
              assert.equal(response.status, 200);
              assert.deepEqual(
                (body as Array<{ id: number }>).map((e) => e.id),
                expected[scope],
              );
            }
          },
        ),
        { numRuns: 60 },
      );
    });

    it('the listing alone sees a star: without migration 024’s listing-version triggers, no stale kept answer or 304', async () => {
      // What remains is the set read with every request and its mark: the listing's own key.
      for (const table of ['project_stars', 'user_follows']) {
        if (dialect === 'postgres') {
          await sql.raw(`DROP TRIGGER ${table}_listing_version ON ${table}`).execute(other.db);
        } else {
          for (const op of ['insert', 'update', 'delete']) {
            await sql.raw(`DROP TRIGGER ${table}_listing_version_${op}`).execute(other.db);
          }
        }
      }
      for (const [path, take, drop, shows] of [
        [
          '/api/v4/events?scope=starred',
          () => star(ids.side),
          () => unstar(ids.side),
          ev.carolSide,
        ],
        [
          '/api/v4/events?scope=followed',
          () => follow(ids.carol),
          () => unfollow(ids.carol),
          ev.carolPub,
        ],
      ] as const) {
        const first = await get(path);
        const tag = first.headers.get('etag')!;
        const before = await first.text();
        // Kept: the same URL again is the kept answer.
        assert.equal(await (await get(path)).text(), before);
        await take();
        const kept = await get(path);
        assert.ok(
          ((await kept.json()) as Array<{ id: number }>).some((e) => e.id === shows),
          `${path}: not the kept answer of before the change`,
        );
        assert.equal((await get(path, { 'if-none-match': tag })).status, 200);
        await drop();
        assert.equal(await (await get(path)).text(), before);
      }
    });

    it('eventCreated(scope: FOLLOWED): a followed user’s new event arrives; after an unfollow no more', async () => {
      const c = liveClient(server.url, { 'PRIVATE-TOKEN': token });
      clients.push(c);
      const s = c.subscribe(`subscription { eventCreated(scope: FOLLOWED) { ${EVENT_FIELDS} } }`);
      await untilSubscribed(server.services, 1);
      const write = (projectId: number, authorId: number) =>
        writeEvent(server.store, server.services, { projectId, authorId, action: 'created' });
      // Carol is not followed: her event is not delivered; bob's is.
      await write(ids.pub, ids.carol);
      const first = await write(ids.pub, ids.bob);
      await s.waitFor(1);
      assert.deepEqual(
        s.events.map((e) => e.databaseId),
        [first],
      );
      // Unfollow bob (another process), follow carol: bob's next event is not delivered, carol's is.
      await unfollow(ids.bob);
      await follow(ids.carol);
      await write(ids.pub, ids.bob);
      const carols = await write(ids.pub, ids.carol);
      await s.waitFor(2);
      await sleep(300);
      assert.deepEqual(
        s.events.map((e) => e.databaseId),
        [first, carols],
      );
      assert.deepEqual(s.errors, []);
      await unfollow(ids.carol);
      await follow(ids.bob);
    });

    it('eventCreated(scope: STARRED): a project starred while subscribed streams from then on', async () => {
      const c = liveClient(server.url, { 'PRIVATE-TOKEN': token });
      clients.push(c);
      const s = c.subscribe(`subscription { eventCreated(scope: STARRED) { ${EVENT_FIELDS} } }`);
      await untilSubscribed(server.services, 1);
      const write = (projectId: number) =>
        writeEvent(server.store, server.services, {
          projectId,
          authorId: ids.carol,
          action: 'created',
        });
      await write(ids.side); // not starred yet
      const pub = await write(ids.pub);
      await s.waitFor(1);
      await star(ids.side);
      const side = await write(ids.side);
      await s.waitFor(2);
      await unstar(ids.side);
      await write(ids.side);
      const last = await write(ids.pub);
      await s.waitFor(3);
      await sleep(300);
      assert.deepEqual(
        s.events.map((e) => e.databaseId),
        [pub, side, last],
      );
      const both = c.subscribe(
        `subscription { eventCreated(scope: STARRED, user: "bob") { ${EVENT_FIELDS} } }`,
      );
      await both.ended;
      assert.match(JSON.stringify(both.errors), /at most one of project, user or scope/);
    });
  });
}
