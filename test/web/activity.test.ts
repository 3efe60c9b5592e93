/**
 * The activity pages over HTTP (issue 10, part 4): GitLab's sentences and links, the tabs' event
 * kinds, keyset "Load more" and the rows the page's script fetches, visibility exactly as the
 * REST listings for the same viewer, the contribution calendar (page and JSON), the dashboard
 * behind sign-in, the routes beside everything else at the root, and bad input never a 5xx.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { rawGet } from '../helpers/http.js';
import { DIALECTS, startServer } from '../helpers/server.js';
import type { Browser } from '../oauth/support.js';
import {
  type ActivityWorld,
  BROWSER_ACCEPT,
  folded,
  listedIds,
  startActivityWorld,
} from './activity-world.js';

for (const dialect of DIALECTS) {
  describe(`activity pages (${dialect})`, () => {
    let world: ActivityWorld;
    let alice: Browser;
    let bob: Browser;
    before(async () => {
      world = await startActivityWorld(dialect);
      alice = await world.signIn('alice');
      bob = await world.signIn('bob');
    });
    after(() => world.close());

    const page = (path: string, browser?: Browser) => world.page(path, browser);
    /** REST's listing of the same source, for the same viewer (a token of that user). */
    const restIds = async (path: string, userId?: number) => {
      const headers: Record<string, string> = {};
      if (userId !== undefined) headers['private-token'] = await world.fixtures.token(userId);
      const sep = path.includes('?') ? '&' : '?';
      const res = await rawGet(world.server.url, `${path}${sep}per_page=100`, headers);
      assert.equal(res.status, 200, res.text);
      return (res.body as Array<{ id: number }>).map((e) => e.id);
    };

    it("a project's page at its full path: GitLab's sentences, links to users and projects, times with the exact time on hover", async () => {
      const res = await page('/acme/platform/api');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(res.headers.get('content-security-policy')!, /connect-src 'self'/);
      const text = folded(res.text);
      const { ids } = world;
      const line = (id: number) => {
        const match = new RegExp(
          `<li class="event" data-id="${id}">.*?<p class="event-line">(.*?)</p>(.*?)</div></li>`,
        ).exec(text);
        assert.ok(match, `event ${id} listed`);
        return {
          sentence: match[1]!
            .replace(/<[^>]+>/g, ' ')
            .replace(/\s+/g, ' ')
            .trim()
            .replace(/&lt;/g, '<')
            .replace(/&gt;/g, '>'),
          rest: match[2]!,
        };
      };
      assert.equal(
        line(ids.commented!).sentence,
        'bob commented on issue #1 «Crash <on> start» at acme / platform / api',
      );
      assert.equal(
        line(ids.merged!).sentence,
        'alice accepted merge request #2 «Fix the crash» at acme / platform / api'.replace(
          '#2',
          '!2',
        ),
      );
      assert.equal(
        line(ids.opened!).sentence,
        'alice opened issue #1 «Crash <on> start» at acme / platform / api',
      );
      assert.equal(
        line(ids.closed!).sentence,
        'alice closed issue #1 «Crash <on> start» at acme / platform / api',
      );
      assert.equal(
        line(ids.pushed!).sentence,
        'alice pushed to branch main at acme / platform / api',
      );
      assert.equal(line(ids.joined!).sentence, 'bob joined project acme / platform / api');
      assert.equal(line(ids.left!).sentence, 'bob left project acme / platform / api');
      // The title is escaped, never markup.
      assert.match(text, /«Crash &lt;on&gt; start»/);
      assert.doesNotMatch(text, /commented on in|MergeRequest|opened Issue/);
      // Three commits, the first line of each, then the rest counted.
      assert.match(
        line(ids.pushed!).rest,
        /<ul class="commits"><li><code>11111111<\/code><span>Guard the start<\/span><\/li><li><code>22222222<\/code><span>Test the crash<\/span><\/li><li><code>33333333<\/code><span>Tidy<\/span><\/li><li class="muted">… and 2 more commits<\/li><\/ul>/,
      );
      assert.match(
        line(ids.commented!).rest,
        /<blockquote class="note">I see it too<\/blockquote>/,
      );
      assert.match(
        line(ids.commented!).rest,
        /<time datetime="2026-01-07T10:00:00.000Z" title="2026-01-07 10:00:00 UTC">1 week ago<\/time>/,
      );
      assert.match(text, /<a class="author" href="\/bob" title="Bob">bob<\/a>/);
      assert.match(
        text,
        /<a class="project" href="\/acme\/platform\/api">acme \/ platform \/ api<\/a>/,
      );
      // The activity path lists the same, newest first, and the script is ours.
      const activity = await page('/acme/platform/api/activity');
      assert.equal(activity.status, 200);
      assert.deepEqual(listedIds(activity.text), listedIds(res.text));
      assert.deepEqual(listedIds(res.text), await restIds(`/api/v4/projects/${world.api}/events`));
      assert.match(
        res.text,
        /<script src="\/assets\/live\/live\.[0-9a-f]{16}\.js" defer><\/script>/,
      );
    });

    it("the tabs list GitLab's event kinds: push, merged, issue (opened, closed, reopened), comments, team", async () => {
      const { ids } = world;
      const expected: Record<string, number[]> = {
        push: [ids.pushed!],
        merged: [ids.merged!],
        issue: [ids.closed!, ids.opened!, ids.old!],
        comments: [ids.commented!],
        team: [ids.carol!, ids.left!, ids.joined!],
      };
      for (const [tab, want] of Object.entries(expected)) {
        const res = await page(`/acme/platform/api/activity?filter=${tab}`);
        assert.equal(res.status, 200, tab);
        assert.deepEqual(listedIds(res.text), want, tab);
        assert.match(
          folded(res.text),
          new RegExp(`<a href="/acme/platform/api/activity\\?filter=${tab}" aria-current="page">`),
        );
      }
      const all = await page('/acme/platform/api?filter=all');
      assert.equal(listedIds(all.text).length, 10);
      assert.match(
        folded(all.text),
        /<a href="\/acme\/platform\/api" aria-current="page">All<\/a>/,
      );
      const empty = await page('/acme/secret?filter=team', alice);
      assert.match(empty.text, /<p class="empty muted">No activity in this project yet\.<\/p>/);
    });

    it('Load more pages by keyset (before=<id>): every event once, in order; rows-only answers for the script', async () => {
      const seen: number[] = [];
      let path: string | null = '/acme/busy';
      let pages = 0;
      while (path) {
        const res = await page(path);
        assert.equal(res.status, 200);
        seen.push(...listedIds(res.text));
        const more = /<a class="button secondary load-more" href="([^"]+)"/.exec(folded(res.text));
        path = more ? more[1]!.replace(/&amp;/g, '&') : null;
        pages++;
      }
      assert.equal(pages, 3);
      assert.deepEqual(seen, world.busyIds);
      const second = world.busyIds[19]!;
      const rows = await page(`/acme/busy?before=${second}&fragment=1`);
      assert.equal(rows.status, 200);
      assert.ok(rows.text.trimStart().startsWith('<ol class="events" data-more="true"'), rows.text);
      assert.doesNotMatch(rows.text, /<html/);
      assert.deepEqual(listedIds(rows.text), world.busyIds.slice(20, 40));
      assert.match(rows.text, new RegExp(`data-next="${world.busyIds[39]}"`));
      // New rows: newer than the id, newest first; none newer than the newest.
      const fresh = await page(`/acme/busy?after=${world.busyIds[3]}`);
      assert.deepEqual(listedIds(fresh.text), world.busyIds.slice(0, 3));
      assert.match(fresh.text, /data-more="false"/);
      assert.deepEqual(listedIds((await page(`/acme/busy?after=${world.busyIds[0]}`)).text), []);
      // Filtered: the tab applies to new rows too.
      const pushes = await page(`/acme/platform/api?filter=push&after=0`);
      assert.deepEqual(listedIds(pushes.text), [world.ids.pushed]);
    });

    it('visibility as the API: a private project is a 404 page for others; user pages list what REST lists for the viewer', async () => {
      for (const browser of [undefined, bob]) {
        for (const path of ['/acme/secret', '/acme/secret/activity', '/acme/secret?after=0']) {
          const res = await page(path, browser);
          assert.equal(res.status, 404, path);
          assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
          assert.match(res.text, /<title>Page not found · pulsegate<\/title>/);
        }
      }
      const own = await page('/acme/secret', alice);
      assert.equal(own.status, 200);
      assert.deepEqual(listedIds(own.text), [world.ids.secret]);

      const anonymous = await page('/alice');
      assert.equal(anonymous.status, 200);
      assert.ok(!listedIds(anonymous.text).includes(world.ids.secret!));
      assert.deepEqual(
        listedIds(anonymous.text),
        (await restIds(`/api/v4/users/${world.alice.id}/events`)).slice(0, 20),
      );
      const asBob = await page('/alice', bob);
      assert.deepEqual(
        listedIds(asBob.text),
        (await restIds(`/api/v4/users/${world.alice.id}/events`, world.bob.id)).slice(0, 20),
      );
      const asAlice = await page('/alice?filter=issue', alice);
      assert.deepEqual(listedIds(asAlice.text), [
        world.ids.secret,
        world.ids.closed,
        world.ids.opened,
        world.ids.old,
      ]);
      // A private profile: the page exists, its activity does not show.
      const carol = await page('/carol');
      assert.equal(carol.status, 200);
      assert.deepEqual(listedIds(carol.text), []);
      assert.match(carol.text, /This user has a private profile\./);
      assert.doesNotMatch(carol.text, /class="calendar"/);
      assert.deepEqual(await restIds(`/api/v4/users/${world.carol.id}/events`), []);
    });

    it('the dashboard: signed-in only, the activity of every project of the user (REST scope=all)', async () => {
      const anonymous = await page('/dashboard/activity');
      assert.equal(anonymous.status, 303);
      assert.equal(anonymous.headers.get('location'), '/users/sign_in');
      // The script's requests after the session ended: 401, and no return path remembered.
      for (const path of [
        '/dashboard/activity?after=1',
        '/dashboard/activity?before=9&fragment=1',
      ]) {
        const rows = await page(path);
        assert.equal(rows.status, 401, path);
        assert.equal(rows.headers.get('set-cookie'), null, path);
      }
      const mine = await page('/dashboard/activity', bob);
      assert.equal(mine.status, 200);
      assert.deepEqual(
        listedIds(mine.text),
        (await restIds('/api/v4/events?scope=all', world.bob.id)).slice(0, 20),
      );
      assert.ok(!listedIds(mine.text).includes(world.ids.secret!));
      assert.match(mine.text, /<a href="\/dashboard\/activity">Activity<\/a>/);
      // The subscription runs as the session: its GraphQL CSRF token is on the page.
      assert.match(mine.text, /data-csrf="[A-Za-z0-9_-]{20,}"/);
      const aliceDash = await page('/dashboard/activity?filter=issue', alice);
      assert.deepEqual(listedIds(aliceDash.text)[0], world.ids.secret);
    });

    it('the contribution calendar: a year of days as JSON and as a heat map, contributions the viewer may see', async () => {
      const json = async (path: string, browser?: Browser) => {
        const res = browser ? await browser.fetch(path) : await rawGet(world.server.url, path);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get('content-type'), 'application/json');
        return JSON.parse(res.text) as Record<string, number>;
      };
      const publicDays = {
        '2026-01-05': 1,
        '2026-01-08': 2,
        '2026-01-10': 1,
        '2026-01-13': 45,
      };
      assert.deepEqual(await json('/users/alice/calendar.json'), publicDays);
      assert.deepEqual(
        Object.keys(await json('/users/alice/calendar.json')),
        Object.keys(publicDays),
      );
      assert.deepEqual(await json('/users/alice/calendar.json', bob), publicDays);
      assert.deepEqual(await json('/users/alice/calendar.json', alice), {
        ...publicDays,
        '2026-01-12': 1,
      });
      // Opening and commenting count; joining and leaving do not.
      assert.deepEqual(await json('/users/bob/calendar.json'), {
        '2026-01-06': 1,
        '2026-01-07': 1,
      });
      assert.deepEqual(await json('/users/carol/calendar.json'), {});
      const missing = await rawGet(world.server.url, '/users/nobody/calendar.json', {
        accept: BROWSER_ACCEPT,
      });
      assert.equal(missing.status, 404);

      const profile = folded((await page('/alice')).text);
      const days = [
        ...profile.matchAll(
          /<a class="day (l\d)" href="\/alice\?date=([\d-]+)" data-date="([\d-]+)" data-count="(\d+)"/g,
        ),
      ].map(([, level, href, date, count]) => {
        // Each day links to the profile narrowed to that day.
        assert.equal(href, date);
        return [level, date, count] as const;
      });
      assert.equal(days.length, 365);
      assert.equal(days[0]![1], '2025-01-16');
      assert.equal(days.at(-1)![1], '2026-01-15');
      const byDate = new Map(days.map((d) => [d[1], { level: d[0], count: Number(d[2]) }]));
      assert.deepEqual(byDate.get('2026-01-13'), { level: 'l4', count: 45 });
      assert.deepEqual(byDate.get('2026-01-08'), { level: 'l1', count: 2 });
      assert.deepEqual(byDate.get('2026-01-09'), { level: 'l0', count: 0 });
      // 2025-01-16 is a Thursday: four blank cells above it in its week (Sunday first), under
      // no month label (February's begins two weeks later).
      assert.match(
        profile,
        /<div class="calendar-grid" role="group" aria-label="49 contributions in the last year"><div class="week"><span class="month" aria-hidden="true"><\/span>(<span class="day pad"><\/span>){4}<a class="day l0" href="\/alice\?date=2025-01-16" data-date="2025-01-16"/,
      );
    });

    it("the API's web_urls lead to these pages; other paths at the root keep their answers", async () => {
      const events = await rawGet(world.server.url, `/api/v4/projects/${world.api}/events`);
      const author = (events.body as Array<{ author: { web_url: string } }>)[0]!.author.web_url;
      assert.equal((await page(author.slice(world.server.url.length))).status, 200);
      const cases: Array<[string, number, string | null]> = [
        ['/alice/', 308, '/alice'],
        ['/acme/platform/api/', 308, '/acme/platform/api'],
        [
          '/acme/platform/api/activity/?filter=push',
          308,
          '/acme/platform/api/activity?filter=push',
        ],
        ['/acme/secret/', 404, null],
        ['/nobody', 404, null],
        ['/acme/platform', 404, null],
        ['/acme/platform/api/activity/more', 404, null],
        ['/profile/applications', 303, '/users/sign_in'],
        ['/users/sign_in', 200, null],
      ];
      for (const [path, status, location] of cases) {
        const res = await page(path);
        assert.equal(res.status, status, path);
        assert.equal(res.headers.get('location'), location, path);
      }
      // API clients keep JSON 404s, under /api and off it.
      for (const path of ['/api/v4/no/such', '/oauth/nothing', '/nobody', '/acme/nothing']) {
        const res = await rawGet(world.server.url, path);
        assert.equal(res.status, 404, path);
        assert.equal(res.headers.get('content-type'), 'application/json', path);
      }
      assert.equal((await rawGet(world.server.url, '/-/health')).status, 200);
    });

    it('bad input answers an HTML 400 or 404, never a 5xx; valid requests mixed in still succeed (fast-check)', async () => {
      const bad = [
        '/acme/platform/api?filter=wiki',
        '/acme/platform/api?before=0',
        '/acme/platform/api?after=99999999999999999999',
        '/acme/platform/api?after=1&before=2',
        '/acme/platform/api?filter=push&filter=team',
        '/alice?fragment=yes',
        '/dashboard/activity?before=-1',
      ];
      for (const path of bad) {
        const res = await page(path, alice);
        assert.equal(res.status, 400, path);
        assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
        assert.match(res.text, /<h1>Bad request<\/h1>/);
      }
      const SEGMENTS = [
        'alice',
        'bob',
        'carol',
        'acme',
        'platform',
        'api',
        'busy',
        'secret',
        'activity',
        'nobody',
        '..',
        '.',
        '%2F',
        '%00',
        '%ZZ',
        'a%2Fb',
        '',
        '~x',
        'x.atom',
        'users',
        'api',
        '-',
        'oauth',
        '%C3%BC',
      ];
      const VALUES = fc.oneof(
        fc.constantFrom(
          'all',
          'push',
          'merged',
          'issue',
          'comments',
          'team',
          'wiki',
          '',
          '0',
          '1',
          '-1',
          '1e3',
          '0x10',
          '99999999999999999999',
          '9007199254740993',
          '%00',
          '%ZZ',
          '%',
          '&',
          '1',
        ),
        fc.nat().map(String),
      );
      const query = fc
        .array(
          fc.tuple(fc.constantFrom('filter', 'before', 'after', 'fragment', 'page', 'x'), VALUES),
          { maxLength: 4 },
        )
        .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
      const path = fc
        .array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 5 })
        .map((s) => `/${s.join('/')}`);
      const valid = fc.constantFrom(
        ['/acme/platform/api', [world.ids.carol]],
        ['/acme/platform/api/activity?filter=push', [world.ids.pushed]],
        ['/alice?filter=merged', [world.ids.merged]],
        [`/acme/busy?filter=push&before=${world.busyIds[43]}`, [world.busyIds[44]]],
      ) as fc.Arbitrary<[string, number[]]>;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.tuple(path, query).map(([p, q]) => ({ path: q ? `${p}?${q}` : p, want: null })),
            valid.map(([p, want]) => ({ path: p, want })),
          ),
          async ({ path, want }) => {
            const res = await rawGet(world.server.url, path, { accept: BROWSER_ACCEPT });
            assert.ok(res.status < 500, `${path}: ${res.status}`);
            // `….atom` paths are the Atom feeds' (their own tests pin their answers).
            if (/\.atom(\?|$)/.test(path)) return;
            assert.ok([200, 303, 308, 400, 404].includes(res.status), `${path}: ${res.status}`);
            if (res.status === 400 || res.status === 404) {
              assert.match(
                res.headers.get('content-type') ?? '',
                /^text\/html|^application\/json/,
                path,
              );
            }
            if (want) {
              assert.equal(res.status, 200, path);
              assert.equal(
                listedIds(res.text)[0],
                want[0],
                `${path}: ${listedIds(res.text).join()} ${res.text.slice(0, 300)}`,
              );
            }
          },
        ),
        { numRuns: 150 },
      );
    });
  });
}

describe('activity pages and the page budget', () => {
  it('user and project pages spend the page budget; paths of other parts of the server do not', async () => {
    const server = await startServer({ config: { pageRateLimit: 3 } });
    try {
      const get = (path: string) => rawGet(server.url, path, { accept: BROWSER_ACCEPT });
      for (let i = 0; i < 5; i++) {
        assert.equal((await get('/api/v4/no/such/thing')).status, 404);
        assert.equal((await get('/oauth/no/such')).status, 404);
      }
      assert.equal((await get('/nobody')).status, 404);
      assert.equal((await get('/acme/nothing')).status, 404);
      assert.equal((await get('/dashboard/activity')).status, 303);
      const over = await get('/someone/else');
      assert.equal(over.status, 429);
      assert.equal(over.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal((await get('/api/v4/no/such/thing')).status, 404);
    } finally {
      await server.close();
    }
  });
});
