/**
 * The activity pages in real Chromium (issue 10, part 4): signing in lands on the dashboard; a
 * new event appears at the top without a reload (over the subscription when /api/graphql speaks
 * graphql-transport-ws, else by the polling fallback: either passes, the mode is reported);
 * "Load more" appends in place; tabs; the contribution calendar; nothing wider than a 390 px
 * phone. Screenshots go to test-artifacts/activity/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  BROWSER_SKIP,
  launchChromium,
  signInThroughForm,
  watchedPage,
} from '../helpers/browser.js';
import { DIALECTS } from '../helpers/server.js';
import { PASSWORD } from '../oauth/support.js';
import { type ActivityWorld, startActivityWorld } from '../web/activity-world.js';

// The DOM as seen from page.evaluate callbacks (the project's TypeScript has no DOM library).
declare const document: {
  documentElement: { scrollWidth: number };
  querySelector(selector: string): { scrollLeft: number; scrollWidth: number; clientWidth: number };
};

const ARTIFACTS = new URL('../../test-artifacts/activity/', import.meta.url);
const shot = (name: string) => new URL(`${name}.png`, ARTIFACTS).pathname;
/** The fallback polls every 5 s; a socket delivers at once. */
const LIVE_TIMEOUT = 15_000;

for (const dialect of DIALECTS) {
  describe(`activity pages in Chromium (${dialect})`, { skip: BROWSER_SKIP }, () => {
    let world: ActivityWorld;
    let browser: Browser;
    let desktop: BrowserContext;
    const problems: string[] = [];
    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      world = await startActivityWorld(dialect);
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await world?.close();
    });

    /** A page that records script errors and policy violations (a failed socket is expected). */
    const open = (context: BrowserContext) => watchedPage(context, problems);

    const url = (path: string) => `${world.server.url}${path}`;
    const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);
    const ids = (page: Page) =>
      page.$$eval('ol.events > li.event', (items) =>
        items.map((item) => Number((item as unknown as { dataset: { id: string } }).dataset.id)),
      );

    it('signing in lands on the dashboard, with Activity in the navigation', async () => {
      desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await open(desktop);
      await signInThroughForm(page, world.server.url, 'alice', PASSWORD);
      assert.equal(
        await page.getAttribute('header nav a:first-child', 'href'),
        '/dashboard/activity',
      );
      assert.equal(await page.textContent('h1'), 'Activity');
      assert.equal((await ids(page))[0], world.busyIds[0]);
      await page.close();
    });

    it('a new event appears at the top without a reload, in GitLab words, "just now"', async () => {
      const page = await open(desktop);
      await page.goto(url('/acme/platform/api'));
      await page.waitForSelector('[data-live-mode]');
      const before = await ids(page);
      const note = await world.fixtures.note(
        world.api,
        world.bob.id,
        { type: 'Issue', id: 1 },
        'Live!',
      );
      const row = await world.fixtures.event({
        projectId: world.api,
        authorId: world.bob.id,
        action: 'commented',
        targetType: 'Note',
        targetId: note.id,
        issueId: 1,
        createdAt: world.server.clock.now(),
      });
      // Subscribers hear of it as they would of a write's commit.
      world.server.services.eventHooks.announce(
        [
          {
            id: row.id,
            projectId: world.api,
            authorId: world.bob.id,
            action: 'commented',
            targetType: 'Note',
            targetId: note.id,
            issueId: 1,
            createdAt: row.created_at,
          },
        ],
        () => undefined,
      );
      const item = page.locator(`ol.events > li.event[data-id="${row.id}"]`);
      await item.waitFor({ timeout: LIVE_TIMEOUT });
      const mode = await page.getAttribute('[data-live]', 'data-live-mode');
      assert.ok(mode === 'socket' || mode === 'polling', String(mode));
      console.log(`# live updates arrived by ${mode}`);
      assert.deepEqual(await ids(page), [row.id, ...before], 'at the top, nothing lost or doubled');
      assert.equal(
        (await item.locator('.event-line').innerText()).replace(/\s+/g, ' ').trim(),
        'bob commented on issue #1 «Crash <on> start» at acme / platform / api',
      );
      assert.equal(await item.locator('time').innerText(), 'just now');
      assert.equal(await item.locator('time').getAttribute('title'), '2026-01-15 12:00:00 UTC');
      assert.equal(page.url(), url('/acme/platform/api'), 'no navigation');
      await page.screenshot({ path: shot('project-desktop'), fullPage: true });
      await page.close();
    });

    it('Load more appends older events in place until there are none; tabs filter', async () => {
      const page = await open(desktop);
      await page.goto(url('/acme/busy'));
      assert.equal((await ids(page)).length, 20);
      await page.click('a.load-more');
      await page.waitForFunction(() => document.querySelector('ol.events') !== null && true);
      await page.locator('ol.events > li.event').nth(39).waitFor();
      await page.click('a.load-more');
      await page.locator('ol.events > li.event').nth(44).waitFor();
      assert.deepEqual(await ids(page), world.busyIds);
      assert.equal(await page.locator('a.load-more').count(), 0);
      assert.equal(page.url(), url('/acme/busy'));

      await page.goto(url('/acme/platform/api'));
      await page.click('nav.tabs a:has-text("Team")');
      await page.waitForURL(url('/acme/platform/api?filter=team'));
      assert.deepEqual(await ids(page), [world.ids.carol, world.ids.left, world.ids.joined]);
      await page.close();
    });

    it('the profile: a year of contributions as a heat map, the newest weeks in view', async () => {
      const page = await open(desktop);
      await page.goto(url('/alice'));
      assert.equal(await page.locator('.calendar-grid .day:not(.pad)').count(), 365);
      const busiest = page.locator('.calendar-grid .day[data-date="2026-01-13"]');
      assert.equal(await busiest.getAttribute('class'), 'day l4');
      assert.equal(await busiest.getAttribute('title'), '45 contributions on 2026-01-13');
      await page.screenshot({ path: shot('profile-desktop'), fullPage: true });
      await page.close();
    });

    it('on a 390 px phone nothing is wider than the screen; the calendar scrolls inside itself', async () => {
      const phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
      });
      await phone.addCookies(await desktop.cookies());
      const page = await open(phone);
      for (const [path, name] of [
        ['/dashboard/activity', 'dashboard'],
        ['/alice', 'profile'],
        ['/acme/platform/api', 'project'],
        ['/acme/busy?filter=push', 'pushes'],
      ] as const) {
        await page.goto(url(path));
        assert.equal(page.url(), url(path), 'signed in');
        await page.screenshot({ path: shot(`${name}-phone`), fullPage: true });
        assert.ok((await pageWidth(page)) <= 390, `${path}: ${await pageWidth(page)} > 390`);
      }
      await page.goto(url('/alice'));
      const scroller = await page.evaluate(() => {
        const el = document.querySelector('.calendar-scroll');
        return { left: el.scrollLeft, width: el.scrollWidth, client: el.clientWidth };
      });
      assert.ok(scroller.width > scroller.client, 'a year is wider than a phone');
      assert.ok(scroller.left > 0, 'scrolled to the newest weeks');
      await phone.close();
    });

    it('no script errors or policy violations on any page', () => {
      assert.deepEqual(problems, []);
    });
  });
}
