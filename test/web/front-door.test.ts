/**
 * What the pages show a newcomer (issue 35, item 5), over HTTP: a day clicked on the calendar
 * (`?date=`) lists exactly that day's events, as REST's `after`/`before` bound it, in every tab,
 * in "Load more" and in the rows the live script fetches; every activity page announces its Atom
 * feed (with the viewer's feed token when signed in) and shows a button for it; avatars are
 * identicons drawn by the server unless `--gravatar` allows Gravatar's URL (the API's); the
 * navigation leads to your own profile and to GraphiQL; a project's heading is its name.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { identiconSvg } from '../../src/web/identicon.js';
import { rawGet } from '../helpers/http.js';
import { DIALECTS } from '../helpers/server.js';
import type { Browser } from '../oauth/support.js';
import {
  type ActivityWorld,
  BROWSER_ACCEPT,
  folded,
  listedIds,
  startActivityWorld,
} from './activity-world.js';

/** The `<link rel="alternate">` elements of a page's head, as attribute maps. */
function alternates(html: string): Record<string, string>[] {
  const head = html.slice(0, html.indexOf('</head>'));
  return [...head.matchAll(/<link\s+rel="alternate"([^>]*)\/>/g)].map((m) =>
    Object.fromEntries([...m[1]!.matchAll(/([a-z-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!])),
  );
}

/** The feed button's address. */
function feedButton(html: string): string | undefined {
  return /<a class="button secondary feed-button" href="([^"]+)"/.exec(folded(html))?.[1];
}

const unescape = (value: string) => value.replace(/&amp;/g, '&');

for (const dialect of DIALECTS) {
  describe(`the front door pages (${dialect})`, () => {
    let world: ActivityWorld;
    let alice: Browser;
    before(async () => {
      world = await startActivityWorld(dialect);
      alice = await world.signIn('alice');
    });
    after(() => world.close());

    const page = (path: string, browser?: Browser) => world.page(path, browser);

    it("a day on the calendar lists exactly that day's events, as REST bounds the day", async () => {
      const { ids } = world;
      // 2026-01-08: alice merged at 10:00 and pushed at 12:00 (the world's seed).
      const day = await page('/alice?date=2026-01-08');
      assert.equal(day.status, 200);
      assert.deepEqual(listedIds(day.text), [ids.pushed, ids.merged]);
      const banner = /<p class="day-filter">([^]*?)<\/p>/.exec(day.text)?.[1] ?? '';
      assert.equal(
        banner
          .replace(/<[^>]+>/g, '')
          .replace(/\s+/g, ' ')
          .trim(),
        'Activity on Thursday 8 January 2026 (UTC) · Show every day',
      );
      assert.match(banner, /<time datetime="2026-01-08">/);
      assert.match(banner, /<a href="\/alice">Show every day<\/a>/);
      assert.match(
        day.text,
        /<a\s+class="day l1"\s+href="\/alice\?date=2026-01-08"[^>]*aria-current="date"/,
      );
      const rest = await rawGet(
        world.server.url,
        '/api/v4/users/alice/events?after=2026-01-07&before=2026-01-09',
      );
      assert.deepEqual(
        (rest.body as Array<{ id: number }>).map((e) => e.id),
        listedIds(day.text),
      );

      // The tab keeps the day, the day keeps the tab.
      const pushes = await page('/alice?filter=push&date=2026-01-08');
      assert.deepEqual(listedIds(pushes.text), [ids.pushed]);
      assert.match(
        pushes.text,
        /href="\/alice\?filter=push&amp;date=2026-01-08"[^>]*aria-current="page"/,
      );
      assert.match(pushes.text, /href="\/alice\?filter=push&amp;date=2026-01-09"/);

      // A project page honours it too; a day without events says so.
      const project = await page('/acme/platform/api?date=2026-01-07');
      assert.deepEqual(listedIds(project.text), [ids.commented]);
      const quiet = await page('/alice?date=2026-01-09');
      assert.deepEqual(listedIds(quiet.text), []);
      assert.match(quiet.text, /<p class="empty muted">No activity on this day\.<\/p>/);

      // The script's new rows and "Load more" stay inside the day.
      const live = folded(day.text);
      assert.match(live, /data-rows="\/alice\?date=2026-01-08"/);
      const rows = await page('/alice?date=2026-01-08&after=0');
      assert.deepEqual(listedIds(rows.text), [ids.pushed, ids.merged]);
      const busy = await page('/acme/busy?date=2026-01-13');
      assert.deepEqual(listedIds(busy.text), world.busyIds.slice(0, 20));
      const more = /href="(\/acme\/busy\?date=2026-01-13&amp;before=\d+)"/.exec(busy.text);
      assert.ok(more, 'Load more keeps the day');
      assert.deepEqual(
        listedIds((await page(unescape(more[1]!))).text),
        world.busyIds.slice(20, 40),
      );
      assert.deepEqual(listedIds((await page('/acme/busy?date=2026-01-12')).text), []);
    });

    it('a day that is not YYYY-MM-DD is a 400 saying so', async () => {
      for (const bad of ['2026-02-30', '8 January', '2026-01-08T10:00:00Z', '20260108']) {
        const res = await page(`/alice?date=${encodeURIComponent(bad)}`);
        assert.equal(res.status, 400, bad);
        assert.match(res.text, /date must be a day: YYYY-MM-DD\./);
      }
      const twice = await page('/alice?date=2026-01-08&date=2026-01-09');
      assert.equal(twice.status, 400);
    });

    it('every activity page announces its Atom feed and shows a button for it', async () => {
      const base = world.server.url;
      const anonymous = await page('/alice');
      assert.deepEqual(alternates(anonymous.text), [
        { type: 'application/atom+xml', title: 'alice activity', href: `${base}/alice.atom` },
      ]);
      assert.equal(feedButton(anonymous.text), `${base}/alice.atom`);
      const project = await page('/acme/platform/api/activity');
      assert.deepEqual(alternates(project.text), [
        {
          type: 'application/atom+xml',
          title: 'api activity',
          href: `${base}/acme/platform/api.atom`,
        },
      ]);

      // Signed in: the viewer's feed token, as the feed token page gives the addresses.
      const token = await world.server.services.feedTokens.tokenFor(world.alice.id);
      for (const [path, feed, title] of [
        ['/dashboard/activity', '/dashboard/projects.atom', 'Your projects’ activity'],
        ['/alice?date=2026-01-08', '/alice.atom', 'alice activity'],
        ['/acme/secret', '/acme/secret.atom', 'secret activity'],
      ] as const) {
        const res = await page(path, alice);
        assert.equal(res.status, 200, path);
        const href = `${base}${feed}?feed_token=${token}`;
        assert.deepEqual(alternates(res.text), [{ type: 'application/atom+xml', title, href }]);
        assert.equal(feedButton(res.text), href);
        // The address is a feed that answers.
        const atom = await fetch(href);
        assert.equal(atom.status, 200, href);
        assert.equal(atom.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
      }
    });

    it('avatars are identicons drawn here by default: the same for the same user, no request elsewhere', async () => {
      const res = await page('/acme/platform/api');
      assert.match(res.headers.get('content-security-policy')!, /img-src 'self' data:;/);
      assert.doesNotMatch(res.text, /gravatar|<img/i);
      const aliceIcon = identiconSvg(`user:${world.alice.id}`);
      const bobIcon = identiconSvg(`user:${world.bob.id}`);
      assert.equal(identiconSvg(`user:${world.alice.id}`), aliceIcon, 'deterministic');
      assert.notEqual(aliceIcon, bobIcon);
      assert.doesNotMatch(aliceIcon, /https?:|href/);
      assert.match(aliceIcon, /^<svg class="avatar identicon" [^>]*>.*<\/svg>$/);
      const item = (id: number) =>
        new RegExp(`<li class="event" data-id="${id}">\\s*(<svg[^]*?</svg>)`).exec(res.text)?.[1];
      assert.equal(item(world.ids.merged!), aliceIcon);
      assert.equal(item(world.ids.commented!), bobIcon);
    });

    it('the navigation leads to your own profile and to GraphiQL; a project is headed by its name', async () => {
      const res = await page('/acme/platform/api', alice);
      const nav = folded(res.text);
      assert.match(nav, /<a href="\/alice">Your profile<\/a>/);
      assert.match(nav, /<a href="\/graphiql">GraphiQL<\/a>/);
      assert.match(
        nav,
        /<header class="page-header"><h1>api<\/h1><p class="muted project-path">acme \/ platform \/ api<\/p>/,
      );
      assert.match(nav, /<title>api · acme\/platform\/api · pulsegate<\/title>/);
      const signedOut = folded((await page('/acme/platform/api')).text);
      assert.match(
        signedOut,
        /<nav class="signed-out"><a href="\/graphiql">GraphiQL<\/a><a href="\/users\/sign_in">Sign in<\/a><\/nav>/,
      );
    });
  });
}

describe('avatars with --gravatar', () => {
  let world: ActivityWorld;
  before(async () => {
    world = await startActivityWorld('sqlite', { gravatar: true });
  });
  after(() => world.close());

  it("pages show the avatar URL the API returns, and allow it in the page's policy", async () => {
    const res = await rawGet(world.server.url, '/acme/platform/api', { accept: BROWSER_ACCEPT });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy')!, /img-src 'self' data: https:;/);
    const rest = await rawGet(world.server.url, `/api/v4/projects/${world.api}/events`);
    const author = (rest.body as Array<{ id: number; author: { avatar_url: string } }>).find(
      (e) => e.id === world.ids.commented,
    )!.author;
    const md5 = createHash('md5').update(world.bob.email.trim().toLowerCase()).digest('hex');
    assert.equal(author.avatar_url, `https://www.gravatar.com/avatar/${md5}?s=80&d=identicon`);
    const img = new RegExp(
      `<li class="event" data-id="${world.ids.commented}">\\s*<img\\s+class="avatar"\\s+src="([^"]+)"`,
    ).exec(res.text);
    assert.ok(img, 'an <img> avatar');
    assert.equal(unescape(img[1]!), author.avatar_url);
    assert.doesNotMatch(res.text, /class="avatar identicon"/);
  });

  it('the setting: off unless PULSEGATE_GRAVATAR or the flag turns it on', () => {
    assert.equal(loadConfig({}, {}).gravatar, false);
    assert.equal(loadConfig({}, { PULSEGATE_GRAVATAR: 'true' }).gravatar, true);
    assert.equal(loadConfig({}, { PULSEGATE_GRAVATAR: '1' }).gravatar, true);
    assert.equal(loadConfig({}, { PULSEGATE_GRAVATAR: 'false' }).gravatar, false);
    assert.equal(loadConfig({ gravatar: true }, { PULSEGATE_GRAVATAR: 'false' }).gravatar, true);
  });
});
