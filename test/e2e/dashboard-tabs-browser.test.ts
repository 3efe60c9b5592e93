/**
 * The dashboard's three tabs in real Chromium (issue 33): "Your projects", "Starred projects" and
 * "Followed users" at 1440 px and on a 390 px phone, each listing what REST's `scope=all|starred|
 * followed` lists for the same user, and a followed user's new event appearing at the top of the
 * followed tab without a reload. Screenshots go to test-artifacts/dashboard-tabs/.
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

declare const document: { documentElement: { scrollWidth: number } };

const ARTIFACTS = new URL('../../test-artifacts/dashboard-tabs/', import.meta.url);
const shot = (name: string) => new URL(`${name}.png`, ARTIFACTS).pathname;
/** The fallback polls every 5 s; a socket delivers at once. */
const LIVE_TIMEOUT = 15_000;

const TABS = [
  { path: '/dashboard/activity', label: 'Your projects', scope: 'all' },
  { path: '/dashboard/activity/starred', label: 'Starred projects', scope: 'starred' },
  { path: '/dashboard/activity/followed', label: 'Followed users', scope: 'followed' },
] as const;

for (const dialect of DIALECTS) {
  describe(`the dashboard's tabs in Chromium (${dialect})`, { skip: BROWSER_SKIP }, () => {
    let world: ActivityWorld;
    let browser: Browser;
    let desktop: BrowserContext;
    let token: string;
    const problems: string[] = [];

    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      world = await startActivityWorld(dialect);
      const { db } = world.server.store;
      // Alice stars acme/busy (hers) and acme/platform/api, and follows bob.
      await db
        .insertInto('project_stars')
        .values(
          [world.busy, world.api].map((id) => ({
            user_id: world.alice.id,
            project_id: id,
            created_at: 0,
          })),
        )
        .execute();
      await db
        .insertInto('user_follows')
        .values({ follower_id: world.alice.id, followee_id: world.bob.id, created_at: 0 })
        .execute();
      token = await world.fixtures.token(world.alice.id, ['read_api']);
      browser = await launchChromium();
      desktop = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await watchedPage(desktop, problems);
      await signInThroughForm(page, world.server.url, 'alice', PASSWORD);
      await page.close();
    });
    after(async () => {
      await browser?.close();
      await world?.close();
    });

    const url = (path: string) => `${world.server.url}${path}`;
    const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);
    const ids = (page: Page) =>
      page.$$eval('ol.events > li.event', (items) =>
        items.map((item) => Number((item as unknown as { dataset: { id: string } }).dataset.id)),
      );
    /** What REST lists for alice in that scope: the page's first 20. */
    async function restIds(scope: string): Promise<number[]> {
      const response = await fetch(url(`/api/v4/events?scope=${scope}&per_page=20`), {
        headers: { 'private-token': token },
      });
      return ((await response.json()) as Array<{ id: number }>).map((e) => e.id);
    }

    async function checkTabs(context: BrowserContext, width: number, name: string) {
      const page = await watchedPage(context, problems);
      for (const tab of TABS) {
        await page.goto(url(tab.path));
        assert.equal(page.url(), url(tab.path), 'signed in');
        const links = page.locator('nav.dashboard-scopes a');
        assert.deepEqual(
          await links.allInnerTexts(),
          TABS.map((t) => t.label),
        );
        assert.equal(
          await page.locator('nav.dashboard-scopes a[aria-current="page"]').innerText(),
          tab.label,
        );
        const expected = await restIds(tab.scope);
        assert.ok(expected.length > 0, `${tab.scope} lists something`);
        assert.deepEqual(await ids(page), expected, tab.path);
        assert.ok(
          (await pageWidth(page)) <= width,
          `${tab.path}: ${await pageWidth(page)} > ${width}`,
        );
        await page.screenshot({ path: shot(`${tab.scope}-${name}`), fullPage: true });
      }
      // The tabs are links: a click goes to the next one.
      await page.goto(url('/dashboard/activity'));
      await page.click('nav.dashboard-scopes a:has-text("Followed users")');
      await page.waitForURL(url('/dashboard/activity/followed'));
      await page.close();
    }

    it('at 1440 px: the three tabs, each the API’s listing', async () => {
      await checkTabs(desktop, 1440, 'desktop');
    });

    it('on a 390 px phone: the three tabs, nothing wider than the screen', async () => {
      const phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
      });
      await phone.addCookies(await desktop.cookies());
      await checkTabs(phone, 390, 'phone');
      await phone.close();
    });

    it('a followed user’s new event appears at the top of the followed tab without a reload', async () => {
      const page = await watchedPage(desktop, problems);
      await page.goto(url('/dashboard/activity/followed'));
      await page.waitForSelector('[data-live-mode]');
      const before = await ids(page);
      const row = await world.fixtures.event({
        projectId: world.api,
        authorId: world.bob.id,
        action: 'joined',
        createdAt: world.server.clock.now(),
      });
      world.server.services.eventHooks.announce(
        [
          {
            id: row.id,
            projectId: world.api,
            authorId: world.bob.id,
            action: 'joined',
            targetType: null,
            targetId: null,
            issueId: null,
            createdAt: row.created_at,
          },
        ],
        () => undefined,
      );
      await page
        .locator(`ol.events > li.event[data-id="${row.id}"]`)
        .waitFor({ timeout: LIVE_TIMEOUT });
      const mode = await page.getAttribute('[data-live]', 'data-live-mode');
      console.log(`# live updates arrived by ${mode}`);
      assert.deepEqual(await ids(page), [row.id, ...before]);
      assert.equal(page.url(), url('/dashboard/activity/followed'), 'no navigation');
      await page.screenshot({ path: shot('followed-live'), fullPage: true });
      await page.close();
    });

    it('no script errors or policy violations on any page', () => {
      assert.deepEqual(problems, []);
    });
  });
}
