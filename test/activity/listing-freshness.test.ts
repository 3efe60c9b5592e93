/**
 * Listing caches that survive writes (issue 13): a write to one project costs a reader of another
 * project nothing (its cached page is still served, observable in the cache metrics), and every
 * cached listing stays exactly what a recomputation from scratch gives, through concurrent writes
 * from other connections, out-of-order commits (PostgreSQL) and visibility changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventFilter } from '../../src/domain/filters.js';
import type { Viewer } from '../../src/domain/visibility.js';
import { type Action, actionCode } from '../../src/domain/vocabulary.js';
import {
  type ActivitySource,
  ActivityService,
  type KeysetWindow,
  type ReaderSource,
} from '../../src/services/activity/activity.js';
import { ManualClock } from '../../src/services/clock.js';
import { NotFoundError } from '../../src/domain/errors.js';
import { Store, openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { get, ids, pagination } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const T0 = Date.UTC(2026, 0, 10);

/** One listing as a reader asks for it. */
interface Case {
  name: string;
  source: ActivitySource;
  filter: EventFilter;
  viewer: () => Viewer | null;
  page: { page: number; perPage: number };
}

/** One page of a case, as REST asks for it. */
async function pageOf(activity: ActivityService, c: Case) {
  const { source, filter, page } = c;
  const answer = await activity.read({ source, filter, page, viewer: c.viewer() });
  assert.ok(!answer.notModified);
  return answer.page;
}

/** A metric's value in the server's Prometheus text. */
async function metric(server: TestServer, name: string, labels: string): Promise<number> {
  const { body } = await server.services.metrics.render();
  const line = body.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Appends one event through the store, in a transaction of its own (as the recorder does). */
function append(
  store: Store,
  projectId: number,
  authorId: number,
  action: Action = 'created',
  issueId: number | null = null,
) {
  return store.transaction((tx) =>
    tx.events.append({
      project_id: projectId,
      author_id: authorId,
      action: actionCode(action),
      target_type: issueId === null ? null : 'Issue',
      target_id: issueId,
      issue_id: issueId,
      created_at: T0,
    }),
  );
}

for (const dialect of DIALECTS) {
  describe(`listing caches survive writes (${dialect})`, () => {
    let server: TestServer;
    /** Another connection to the same database, as another process would write. */
    let writer: Store;
    /** One more, that recomputations read through: they share no cache with the server. */
    let oracle: Store;
    let token: string;
    let alice: { id: number };
    let bob: { id: number };
    let pa: number;
    let pb: number;
    let secret: number;
    let issueId: number;
    let publicIssueId: number;

    before(async () => {
      server = await startServer({ dialect });
      writer = await openStore(server.config.databaseUrl);
      oracle = await openStore(server.config.databaseUrl, { migrate: false });
      const f = new Fixtures(server.store);
      alice = await f.user('alice');
      bob = await f.user('bob');
      pa = (await f.project('acme/a', alice.id, 'public')).id;
      pb = (await f.project('acme/b', alice.id, 'public')).id;
      secret = (await f.project('acme/secret', alice.id, 'private')).id;
      await f.member(pa, alice.id, 40);
      await f.member(secret, alice.id, 50);
      await f.member(secret, bob.id, 10);
      await f.member(pb, bob.id, 30);
      issueId = (await f.issue(secret, alice.id, 'Quiet issue')).id;
      publicIssueId = (await f.issue(pa, alice.id, 'Loud issue')).id;
      token = await f.token(alice.id);
      for (let i = 0; i < 60; i++) {
        await f.event({
          projectId: [pa, pb, secret][i % 3]!,
          authorId: i % 2 ? alice.id : bob.id,
          action: i % 4 === 0 ? 'pushed' : 'created',
          // Events about an issue are in the issue's project.
          issueId: i % 5 === 0 ? [publicIssueId, null, issueId][i % 3]! : null,
          createdAt: T0 + i,
        });
      }
    });
    after(async () => {
      await writer.close();
      await oracle.close();
      await server.close();
    });

    it('a write to project A leaves a cached page of project B valid: served from cache, no query', async () => {
      const path = `/api/v4/projects/${pb}/events?per_page=5`;
      const first = await get(server.url, path, token);
      assert.equal(first.status, 200);
      const hits = await metric(
        server,
        'pulsegate_cache_lookups_total',
        'cache="rest_page",result="hit"',
      );
      const skipped = await metric(server, 'pulsegate_listing_refresh_total', 'outcome="skipped"');

      const kept = () =>
        metric(server, 'pulsegate_cache_lookups_total', 'cache="response",result="hit"');
      const keptBefore = await kept();

      await append(writer, pa, alice.id);
      // The same URL: B's mark did not move, so the response sent before is sent again whole.
      const again = await get(server.url, path, token);
      assert.equal(again.status, 200);
      assert.equal(again.text, first.text);
      assert.equal(again.headers.get('etag'), first.headers.get('etag'));
      assert.equal(await kept(), keptBefore + 1, "B's response is kept across a write to A");
      // Another URL of the same page runs the listing: its entry serves the page from the cache.
      const same = await get(server.url, `${path}&page=1`, token);
      assert.equal(same.text, first.text);
      assert.equal(
        await metric(server, 'pulsegate_cache_lookups_total', 'cache="rest_page",result="hit"'),
        hits + 1,
        'the page of B is served from the cache after a write to A',
      );
      assert.equal(
        await metric(server, 'pulsegate_listing_refresh_total', 'outcome="skipped"'),
        skipped + 1,
        "B's entry moved its mark without walking anything",
      );

      // A write to B itself is walked in: the page shows it first, the total grows by one.
      const forwarded = await metric(
        server,
        'pulsegate_listing_refresh_total',
        'outcome="forwarded"',
      );
      const row = await append(writer, pb, bob.id, 'closed');
      const after = await get(server.url, path, token);
      assert.deepEqual(ids(after.body), [row.id, ...ids(first.body).slice(0, 4)]);
      assert.equal(
        Number(pagination(after.headers).total),
        Number(pagination(first.headers).total) + 1,
      );
      assert.equal(
        await metric(server, 'pulsegate_listing_refresh_total', 'outcome="forwarded"'),
        forwarded + 1,
      );
    });

    it('a filtered listing walks nothing after events its filter excludes, and sees those it includes', async () => {
      const refreshed = (outcome: string) =>
        metric(server, 'pulsegate_listing_refresh_total', `outcome="${outcome}"`);
      const cases: Array<[string, () => Promise<unknown>, () => Promise<{ id: number }>]> = [
        [
          `/api/v4/projects/${pa}/events?action=pushed&per_page=5`,
          () => append(writer, pa, alice.id, 'created'),
          () => append(writer, pa, alice.id, 'pushed'),
        ],
        [
          `/api/v4/projects/${pa}/events?target_type=issue&per_page=5`,
          () => append(writer, pa, alice.id, 'closed'),
          () => append(writer, pa, alice.id, 'closed', publicIssueId),
        ],
        // By author, in another project.
        [
          `/api/v4/users/${alice.id}/events?action=pushed&per_page=5`,
          () => append(writer, pb, alice.id, 'created'),
          () => append(writer, pb, alice.id, 'pushed'),
        ],
      ];
      for (const [path, excluded, included] of cases) {
        const first = await get(server.url, path, token);
        assert.equal(first.status, 200);
        const [skipped, forwarded] = [await refreshed('skipped'), await refreshed('forwarded')];
        await excluded();
        // Another URL of the same listing: the kept response of `path` would answer before it.
        const same = await get(server.url, `${path}&page=1`, token);
        assert.equal(same.text, first.text, path);
        assert.equal(
          await refreshed('skipped'),
          skipped + 1,
          `${path}: no walk after an excluded event`,
        );
        assert.equal(await refreshed('forwarded'), forwarded, path);
        const row = await included();
        const after = await get(server.url, path, token);
        assert.deepEqual(ids(after.body), [row.id, ...ids(first.body).slice(0, 4)], path);
        assert.equal(await refreshed('forwarded'), forwarded + 1, path);
      }
    });

    it('new events shift cached newest-first pages: page 2 is rebuilt from pages 1 and 2, no query', async () => {
      const page = (n: number) => `/api/v4/projects/${pb}/events?per_page=4&page=${n}`;
      const before = [];
      for (const n of [1, 2, 3]) before.push(ids((await get(server.url, page(n), token)).body));
      const hit = () =>
        metric(server, 'pulsegate_cache_lookups_total', 'cache="rest_page",result="hit"');
      const miss = () =>
        metric(server, 'pulsegate_cache_lookups_total', 'cache="rest_page",result="miss"');
      const [hits, misses] = [await hit(), await miss()];

      const first = await append(writer, pb, bob.id);
      const second = await append(writer, pb, alice.id, 'pushed');
      const old = before.flat();
      const after = [];
      for (const n of [1, 2, 3]) after.push(ids((await get(server.url, page(n), token)).body));
      assert.deepEqual(after, [
        [second.id, first.id, ...old.slice(0, 2)],
        old.slice(2, 6),
        old.slice(6, 10),
      ]);
      // Every page came from the cache: the new rows and the cached pages hold all of them.
      assert.equal((await hit()) - hits, 3);
      assert.equal((await miss()) - misses, 0);
      // Page 4 was never cached: its rows are not known, so it is read (and exact).
      const fourth = await get(server.url, page(4), token);
      assert.deepEqual(ids(fourth.body).slice(0, 2), old.slice(10, 12));
      assert.equal(ids(fourth.body).length, 4);
      assert.equal((await miss()) - misses, 1);
    });

    it('a cached page whose rows are not all known after new events is settled with a short walk, exact', async () => {
      const page = (n: number) => `/api/v4/projects/${pa}/events?per_page=4&page=${n}`;
      // The listing as it stands, read through another listing (oldest first) so that nothing of
      // this one is cached but pages 1 and 3: after a write, page 3's first row is unknown.
      const old = ids(
        (await get(server.url, `/api/v4/projects/${pa}/events?sort=asc&per_page=100`, token)).body,
      ).reverse();
      assert.ok(old.length >= 12);
      assert.deepEqual(ids((await get(server.url, page(1), token)).body), old.slice(0, 4));
      assert.deepEqual(ids((await get(server.url, page(3), token)).body), old.slice(8, 12));
      const hit = () =>
        metric(server, 'pulsegate_cache_lookups_total', 'cache="rest_page",result="hit"');
      const miss = () =>
        metric(server, 'pulsegate_cache_lookups_total', 'cache="rest_page",result="miss"');
      // Two writes, each walked in by a read of page 1 before page 3 is asked for again: page 3
      // is pushed down twice while nobody reads it.
      const first = await append(writer, pa, bob.id);
      assert.deepEqual(ids((await get(server.url, page(1), token)).body)[0], first.id);
      const second = await append(writer, pa, alice.id, 'pushed');
      assert.deepEqual(ids((await get(server.url, page(1), token)).body).slice(0, 2), [
        second.id,
        first.id,
      ]);
      const [hits, misses] = [await hit(), await miss()];
      const settled = await get(server.url, page(3), token);
      assert.equal(settled.status, 200);
      assert.deepEqual(ids(settled.body), old.slice(6, 10));
      assert.equal(settled.headers.get('x-next-page'), '4');
      // Served from the cache (no full page read), and the settled page is kept.
      assert.equal((await hit()) - hits, 1);
      assert.equal((await miss()) - misses, 0);
      assert.deepEqual(ids((await get(server.url, page(3), token)).body), old.slice(6, 10));
      assert.equal((await miss()) - misses, 0);
    });

    /**
     * A recomputation from scratch: a store of its own over the oracle's connection with its row
     * caches off and no shared per-turn reading, under a service with its page cache off, made
     * afresh for each listing so that nothing computed for one answers another. A cache bug of the
     * server's (a row, a membership, a page kept too long) cannot hide on this side too.
     */
    function coldService(): ActivityService {
      const { turnReading: _shared, ...conn } = oracle.conn;
      const store = new Store({ ...conn, rowVersion: () => () => null });
      return new ActivityService(store, new ManualClock(T0), { pageCache: false });
    }

    /** The listings compared: projects, users, the viewer's own and scope=all, deep pages, both sorts, filters, several viewers. */
    function cases(): Case[] {
      const viewers: Array<[string, () => Viewer | null]> = [
        ['alice', () => ({ userId: alice.id, admin: false })],
        ['bob', () => ({ userId: bob.id, admin: false })],
        ['anonymous', () => null],
      ];
      const out: Case[] = [];
      const filters: EventFilter[] = [
        { sort: 'desc' },
        { sort: 'desc', targetType: 'Issue' },
        { sort: 'asc' },
        { sort: 'desc', action: 'pushed' },
        { sort: 'asc', action: 'created' },
      ];
      // Pages 1 to 3: after new events a cached page 2 or 3 is rebuilt from the pages before it.
      // Page 5 (page 4 is never cached): its first rows are unknown, it is settled by a walk.
      const pages = [
        { page: 1, perPage: 5 },
        { page: 2, perPage: 5 },
        { page: 3, perPage: 5 },
        { page: 5, perPage: 5 },
      ];
      for (const [who, viewer] of viewers) {
        for (const filter of filters) {
          for (const page of pages) {
            const sources: ActivitySource[] = [
              { kind: 'project', idOrPath: String(pa) },
              { kind: 'project', idOrPath: String(pb) },
              { kind: 'user', idOrUsername: 'alice' },
            ];
            if (who !== 'anonymous') {
              sources.push({ kind: 'project', idOrPath: String(secret) });
              sources.push({ kind: 'viewer', scope: 'all' }, { kind: 'viewer' });
            }
            for (const source of sources) {
              out.push({
                name: `${who} ${JSON.stringify(source)} ${JSON.stringify(filter)} ${page.page}/${page.perPage}`,
                source,
                filter,
                viewer,
                page,
              });
            }
          }
        }
      }
      return out;
    }

    /**
     * Every case through the warm service equals a recomputation (`coldService`). A listing may be
     * missing only where the visibility changes below hide its project from its viewer (bob leaves
     * the private project, project B turns internal), and then on both sides; any other error fails.
     */
    async function compareAll(label: string) {
      for (const c of cases()) {
        // Each request arrives in an event-loop turn of its own; SQLite's data version is read
        // once per turn (store/database.ts), as it is for a real request.
        await new Promise((resolve) => setImmediate(resolve));
        const warm = await settle(c, () => pageOf(server.services.activity, c));
        const fresh = await settle(c, () => pageOf(coldService(), c));
        assert.deepEqual(warm, fresh, `${label}: ${c.name}`);
      }
      // GraphQL's keyset windows and totals, through per-request readers as resolvers use them.
      for (const [who, viewer] of [
        ['alice', { userId: alice.id, admin: false }],
        ['bob', { userId: bob.id, admin: false }],
      ] as const) {
        for (const sort of ['desc', 'asc'] as const) {
          const sources: ReaderSource[] = [
            { kind: 'viewer', scope: 'all' },
            { kind: 'project', id: pa },
            { kind: 'project', id: pb },
          ];
          const windowOf = (service: ActivityService, i: number) => {
            const reader = service.reader(viewer);
            return async (window: KeysetWindow) =>
              reader.events(sources[i]!, { sort }, window).then((w) => w.events);
          };
          for (const i of sources.keys()) {
            const warmListing = { window: windowOf(server.services.activity, i) };
            const coldListing = { window: windowOf(coldService(), i) };
            const total = async (service: ActivityService) =>
              (await service.reader(viewer).events(sources[i]!, { sort }, { limit: 1 })).total();
            const cut = (await coldListing.window({ limit: 4 }))[2]?.id;
            const windows = [
              { limit: 6 },
              { limit: 6, reverse: true },
              ...(cut === undefined
                ? []
                : [
                    { afterId: cut, limit: 3 },
                    { beforeId: cut, limit: 3 },
                  ]),
            ];
            for (const window of windows) {
              await new Promise((resolve) => setImmediate(resolve));
              const got = (await warmListing.window(window)).map((e) => e.id);
              const expected = (await windowOf(coldService(), i)(window)).map((e) => e.id);
              assert.deepEqual(
                got,
                expected,
                `${label}: ${who} window ${i} ${sort} ${JSON.stringify(window)}`,
              );
            }
            assert.equal(
              await total(server.services.activity),
              await total(coldService()),
              `${label}: ${who} total ${i} ${sort}`,
            );
          }
        }
      }
    }

    /** Whether a visibility change of the tests below may hide this case's project from its viewer. */
    function mayBeHidden(c: Case): boolean {
      if (c.source.kind !== 'project' || !('idOrPath' in c.source)) return false;
      const viewer = c.viewer()?.userId ?? null;
      return (
        (c.source.idOrPath === String(secret) && viewer === bob.id) ||
        (c.source.idOrPath === String(pb) && viewer === null)
      );
    }

    /** A page as the comparisons see it; "not found" only where `mayBeHidden`, else it throws. */
    async function settle(c: Case, work: () => ReturnType<typeof pageOf>) {
      try {
        const listing = await work();
        return {
          ids: listing.events.map((e) => e.id),
          total: listing.total,
          hasNext: listing.hasNext,
        };
      } catch (error) {
        if (error instanceof NotFoundError && mayBeHidden(c)) return { notFound: error.message };
        throw error;
      }
    }

    it('a page past the end, or a profile whose every event the viewer may not see, is answered from its count (SQLite: no walk)', async () => {
      const f = new Fixtures(server.store);
      const quiet = await f.user('quiet-author');
      const outsider = await f.user('outsider');
      // Work only in the private project, where the outsider is no member.
      for (let i = 0; i < 30; i++) {
        await f.event({
          projectId: secret,
          authorId: quiet.id,
          action: 'created',
          createdAt: T0 + 100 + i,
        });
      }
      const events = server.store.events;
      let walks = 0;
      const { list } = events;
      events.list = (...args) => (walks++, list.apply(events, args));
      const { activity } = server.services;
      const ask = (viewer: { id: number }, page: number) =>
        pageOf(activity, {
          name: 'quiet author',
          source: { kind: 'user', idOrUsername: String(quiet.id) },
          filter: { sort: 'desc' },
          viewer: () => ({ userId: viewer.id, admin: false }),
          page: { page, perPage: 20 },
        });
      try {
        const hidden = await ask(outsider, 1);
        assert.deepEqual({ ids: hidden.events, total: hidden.total }, { ids: [], total: 0 });
        // Alice, Owner of the private project, sees all 30: page 2 holds 10, page 3 none.
        const seen = await ask(alice, 2);
        assert.equal(seen.events.length, 10);
        assert.equal(seen.total, 30);
        const past = await ask(alice, 3);
        assert.deepEqual({ ids: past.events, total: past.total }, { ids: [], total: 30 });
        // SQLite runs one statement at a time, so the count comes first and a page it shows to
        // be empty is never walked (a walk would read every hidden event to find none).
        // PostgreSQL sends the count and the walk of a listing met for the first time together;
        // page 3 then finds the count kept.
        assert.equal(walks, dialect === 'sqlite' ? 1 : 2);
      } finally {
        events.list = list;
      }
    });

    it('readers of one listing at the same moment share its walks: one forward, one count, one page, one window', async () => {
      const events = server.store.events;
      const calls = { since: 0, count: 0, list: 0 };
      const { since, count, list } = events;
      events.since = (...args) => (calls.since++, since.apply(events, args));
      events.count = (...args) => (calls.count++, count.apply(events, args));
      events.list = (...args) => (calls.list++, list.apply(events, args));
      const refreshed = (outcome: string) =>
        metric(server, 'pulsegate_listing_refresh_total', `outcome="${outcome}"`);
      const { activity } = server.services;
      const viewer = { userId: alice.id, admin: false };
      // A filter no other test reads, so the listing's entry is made here.
      const c: Case = {
        name: 'alice, project A, created, 4 a page',
        source: { kind: 'project', idOrPath: String(pa) },
        filter: { sort: 'desc', action: 'created' },
        viewer: () => viewer,
        page: { page: 1, perPage: 4 },
      };
      const readers = 8;
      const together = () =>
        Promise.all(Array.from({ length: readers }, () => pageOf(activity, c)));
      const fromScratch = () =>
        pageOf(coldService(), c).then((p) => ({
          ids: p.events.map((e) => e.id),
          total: p.total,
        }));
      try {
        // A listing nobody asked for yet: counted once, its page walked and hydrated once.
        const first = await together();
        assert.deepEqual({ count: calls.count, list: calls.list }, { count: 1, list: 1 });
        const expected = await fromScratch();
        for (const got of first) {
          assert.deepEqual({ ids: got.events.map((e) => e.id), total: got.total }, expected);
        }
        Object.assign(calls, { since: 0, count: 0, list: 0 });

        // A write to it: the readers arriving together walk its new events once, the others wait.
        const [forwarded, joined] = [await refreshed('forwarded'), await refreshed('joined')];
        const row = await append(writer, pa, bob.id, 'created');
        // The readers arrive in a later event-loop turn (SQLite reads its data version per turn).
        await new Promise((resolve) => setImmediate(resolve));
        const second = await together();
        assert.equal(calls.since, 1, 'one walk of the new events for all readers');
        assert.equal(await refreshed('forwarded'), forwarded + 1);
        assert.equal(await refreshed('joined'), joined + readers - 1);
        assert.equal(calls.count + calls.list, 0, 'count and page brought forward, not redone');
        const now = await fromScratch();
        assert.equal(now.ids[0], row.id);
        for (const got of second) {
          assert.deepEqual({ ids: got.events.map((e) => e.id), total: got.total }, now);
        }

        // GraphQL: one keyset window of one listing, asked by readers at the same moment.
        Object.assign(calls, { since: 0, count: 0, list: 0 });
        const reader = activity.reader(viewer);
        const windows = await Promise.all(
          Array.from({ length: readers }, async () => {
            const source = { kind: 'project', id: pa } as const;
            const filter = { sort: 'desc', action: 'created' } as const;
            return (await reader.events(source, filter, { limit: 3, reverse: true })).events;
          }),
        );
        assert.equal(calls.list, 1, 'one walk for the window');
        for (const views of windows) assert.deepEqual(views, windows[0]);
      } finally {
        Object.assign(events, { since, count, list });
      }
    });

    it('scope=all is brought forward by walking only the member projects that got new events', async () => {
      const events = server.store.events;
      const walked: Array<readonly number[] | undefined> = [];
      const { since } = events;
      events.since = (q, afterId, limit, projects) => {
        walked.push(projects);
        return since.call(events, q, afterId, limit, projects);
      };
      const { activity } = server.services;
      const c: Case = {
        name: 'alice, scope=all, 6 a page',
        source: { kind: 'viewer', scope: 'all' },
        filter: { sort: 'desc' },
        viewer: () => ({ userId: alice.id, admin: false }),
        page: { page: 1, perPage: 6 },
      };
      const members = (await events.memberProjects(alice.id)).map((p) => p.projectId);
      assert.ok(members.length >= 2 && members.includes(secret), 'alice spans several projects');
      const fromScratch = async () => {
        const cold = await pageOf(coldService(), c);
        return { ids: cold.events.map((e) => e.id), total: cold.total };
      };
      try {
        await pageOf(activity, c);
        const row = await append(writer, secret, bob.id, 'created');
        await new Promise((resolve) => setImmediate(resolve));
        walked.length = 0;
        const got = await pageOf(activity, c);
        assert.deepEqual(walked, [[secret]], 'one walk, of the project written to');
        const expected = await fromScratch();
        assert.equal(expected.ids[0], row.id);
        assert.deepEqual({ ids: got.events.map((e) => e.id), total: got.total }, expected);
      } finally {
        Object.assign(events, { since });
      }
    });

    it('every listing is exact after concurrent writes from other connections (against a recomputation)', async () => {
      const second = await openStore(server.config.databaseUrl);
      try {
        await compareAll('warm-up');
        for (let round = 0; round < 4; round++) {
          const writes: Promise<unknown>[] = [];
          const reads: Promise<unknown>[] = [];
          // SQLite: one writer at a time across connections; two connections of one process
          // must not hold write transactions at once (the busy wait would block the very thread
          // that has to commit), so there the writes form one chain, interleaved with the reads.
          let chain: Promise<unknown> = Promise.resolve();
          for (let i = 0; i < 12; i++) {
            const store = i % 2 ? writer : second;
            const write = () =>
              append(
                store,
                [pa, pb, secret][(i + round) % 3]!,
                i % 3 ? alice.id : bob.id,
                i % 4 ? 'created' : 'pushed',
              );
            if (dialect === 'sqlite') {
              chain = chain.then(write);
              writes.push(chain);
            } else writes.push(write());
            const c = cases()[(round * 37 + i * 11) % cases().length]!;
            reads.push(settle(c, () => pageOf(server.services.activity, c)));
          }
          await Promise.all([...writes, ...reads]);
          await compareAll(`round ${round}`);
        }
      } finally {
        await second.close();
      }
    });

    it('visibility changes (membership, project visibility, confidentiality, deletion) reach cached listings at once', async () => {
      await compareAll('before');
      await writer.db
        .deleteFrom('project_members')
        .where('project_id', '=', secret)
        .where('user_id', '=', bob.id)
        .execute();
      await compareAll('bob removed from the private project');
      await writer.db
        .updateTable('issues')
        .set({ confidential: 1 })
        .where('id', 'in', [issueId, publicIssueId])
        .execute();
      await compareAll('issue made confidential');
      await writer.db
        .updateTable('projects')
        .set({ visibility: 'internal' })
        .where('id', '=', pb)
        .execute();
      await compareAll('project B internal');
      await writer.db
        .insertInto('project_members')
        .values({ project_id: pb, user_id: alice.id, access_level: 10 })
        .execute();
      await compareAll('alice joins B as guest');
      const newest = await writer.events.newestId();
      await writer.db.deleteFrom('push_event_payloads').where('event_id', '=', newest).execute();
      await writer.db.deleteFrom('events').where('id', '=', newest).execute();
      await compareAll('newest event deleted');
    });

    if (dialect === 'postgres') {
      it('PostgreSQL: a request reads the head and row counter once, however many of its steps ask', async () => {
        // Each step (token, user, membership, the listing's mark, a kept GraphQL answer's
        // listings) used to wait for a reading of its own, a round trip each.
        const readings = async (send: () => Promise<{ status: number }>) => {
          const before = server.store.readStamp()!.sent;
          assert.equal((await send()).status, 200);
          return server.store.readStamp()!.sent - before;
        };
        const rest = (path: string) => () => get(server.url, path, token);
        for (const path of [
          `/api/v4/projects/${pa}/events`,
          `/api/v4/users/${bob.id}/events`,
          '/api/v4/events?scope=all',
        ]) {
          await readings(rest(path)); // kept from here on
          assert.equal(await readings(rest(path)), 1, path);
        }
        // A page computed for the first time: its walk, count and hydration (the authors' and
        // projects' rows, cached or not) reuse the request's reading rather than take new ones.
        // The member projects a walk merges (scope=all, a user's listing) are read under it too.
        for (const path of [
          `/api/v4/projects/${pa}/events?per_page=3&page=2`,
          `/api/v4/users/${bob.id}/events?per_page=4`,
          `/api/v4/users/${alice.id}/events?per_page=2&page=2`,
          '/api/v4/events?scope=all&per_page=3&page=2',
        ]) {
          assert.equal(await readings(rest(path)), 1, `${path}, the first time`);
        }
        const gql = (query: string) => () =>
          fetch(`${server.url}/api/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'private-token': token },
            body: JSON.stringify({ query }),
          });
        const graphql = gql(`{
          project(idOrPath: "${pa}") { events(first: 5) { nodes { databaseId } } }
          user(id: "${bob.id}") { events(first: 5) { nodes { databaseId } } }
        }`);
        await readings(graphql);
        assert.equal(await readings(graphql), 1, 'a kept GraphQL answer');
        // A GraphQL answer computed for the first time: its lookups, windows, counts and
        // hydration share the request's reading too (a mutation's would not: it reads its write).
        const computed = gql(`{
          project(idOrPath: "${pa}") {
            events(first: 2) { totalCount nodes { databaseId author { username } } }
          }
          user(id: "${alice.id}") { events(first: 3) { totalCount nodes { databaseId } } }
          events(scope: ALL, first: 4) { totalCount nodes { databaseId project { id } } }
        }`);
        assert.equal(await readings(computed), 1, 'a GraphQL answer computed');
        // After a write, answers brought forward over it (their new rows walked and hydrated, a
        // page pushed down settled, scope=all's member projects) still read once, and so does an
        // event's target resolved through the request's batch loaders (the issue's author, not
        // the viewer: a users row-cache lookup).
        const theirs = await new Fixtures(writer).issue(pb, bob.id, 'Bob files one');
        const target = gql(`{
          project(idOrPath: "${pb}") {
            events(first: 1) { nodes { target { ... on Issue { title author { username } } } } }
          }
        }`);
        const brought = [
          rest(`/api/v4/projects/${pb}/events?per_page=2`),
          rest(`/api/v4/projects/${pb}/events?per_page=7&page=2`),
          rest('/api/v4/events?scope=all&per_page=2'),
          rest(`/api/v4/users/${bob.id}/events?per_page=2`),
          target,
        ];
        for (const send of brought) await send();
        await append(writer, pb, bob.id, 'created', theirs.id);
        const answer = await target();
        assert.deepEqual(await answer.json(), {
          data: {
            project: {
              events: {
                nodes: [{ target: { title: 'Bob files one', author: { username: 'bob' } } }],
              },
            },
          },
        });
        for (let round = 0; round < 2; round++) {
          await append(writer, pb, bob.id, 'created', theirs.id);
          for (const [i, send] of brought.entries()) {
            assert.equal(await readings(send), 1, `answer ${i} after a write (round ${round})`);
          }
        }
        // A feed reader's poll: the token, the project by path, the listing and its page.
        await readings(rest('/acme/a.atom'));
        assert.equal(await readings(rest('/acme/a.atom')), 1, 'an Atom feed');
        // And a write committed before a request came is always in its answer (a reading sent
        // before it arrived is never used): the next page shows it first.
        const path = `/api/v4/projects/${pa}/events?per_page=3`;
        await get(server.url, path, token);
        const row = await append(writer, pa, bob.id);
        assert.equal(ids((await get(server.url, path, token)).body)[0], row.id);
      });

      it('PostgreSQL: a later id cannot become visible before an earlier one, so no cached listing misses it', async () => {
        const path = `/api/v4/projects/${pa}/events?per_page=100`;
        const before = ids((await get(server.url, path, token)).body);
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let first = 0;
        let started!: () => void;
        const inserted = new Promise<void>((resolve) => (started = resolve));
        // T1 draws its id and waits before committing.
        const t1 = writer.transaction(async (tx) => {
          first = (await append(tx, pa, alice.id)).id;
          started();
          await held;
        });
        await inserted;
        // T2 starts after T1 drew its id: without the append lock it would commit id first + 1
        // while T1 is open, a reader would cache up to it, and T1's event would never be walked.
        const other = await openStore(server.config.databaseUrl);
        try {
          const t2 = append(other, pa, bob.id);
          await new Promise((resolve) => setTimeout(resolve, 200));
          const during = ids((await get(server.url, path, token)).body);
          assert.deepEqual(during, before, 'neither event is visible while T1 is open');
          release();
          await t1;
          const second = (await t2).id;
          const afterBoth = ids((await get(server.url, path, token)).body);
          assert.deepEqual(afterBoth.slice(0, 2), [second, first]);
          assert.ok(second > first);
          await compareAll('after out-of-order attempt');
        } finally {
          await other.close();
        }
      });
    }
  });
}
