/**
 * The pages a newcomer looks at first (issue 35, item 5), in real Chromium at a 390 px phone and
 * a 1440 px desktop: GraphiQL with a query run (the result pane below the editor on the phone,
 * never narrower than 300 px, the site's navigation above), the contribution calendar (month and
 * weekday labels, the newest month in view, a clicked day narrowing the list to its events) and
 * the applications table (long URIs wrap at their seams, the App ID stays whole where it fits).
 * Nothing is wider than the screen. Screenshots go to test-artifacts/front-door/.
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
import { PASSWORD } from '../oauth/support.js';
import { type ActivityWorld, startActivityWorld } from '../web/activity-world.js';

// The DOM as seen from page.evaluate callbacks (the project's TypeScript has no DOM library).
interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
}
declare const document: {
  documentElement: { scrollWidth: number };
  querySelector(selector: string): {
    scrollLeft: number;
    scrollWidth: number;
    clientWidth: number;
    getBoundingClientRect(): Box;
  } | null;
};
declare const window: { innerWidth: number };

const ARTIFACTS = new URL('../../test-artifacts/front-door/', import.meta.url);
const shot = (name: string) => new URL(`${name}.png`, ARTIFACTS).pathname;

const WIDTHS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1440, height: 900 },
] as const;

const REDIRECTS = [
  'https://dashboard.platform-team.example.org/oauth/callback/gitlab-compatible-provider',
  'http://localhost:8080/auth/pulsegate/callback?return_to=%2Fprojects%2Fplatform',
];

describe('the front door pages in Chromium, phone and desktop', { skip: BROWSER_SKIP }, () => {
  let world: ActivityWorld;
  let browser: Browser;
  let appId: string;
  const problems: string[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    world = await startActivityWorld();
    const { app } = await world.server.services.oauth.applications.create(world.alice.id, {
      name: 'Continuous integration dashboard',
      redirectUris: REDIRECTS.join('\n'),
      scopes: ['api', 'read_user', 'openid', 'profile', 'email'],
      confidential: true,
    });
    appId = app.uid;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  async function signedIn(width: number, height: number): Promise<Page> {
    const context: BrowserContext = await browser.newContext({ viewport: { width, height } });
    const page = await watchedPage(context, problems);
    await signInThroughForm(page, world.server.url, 'alice', PASSWORD);
    return page;
  }

  const box = (page: Page, selector: string) =>
    page.evaluate((s) => {
      const found = document.querySelector(s);
      if (!found) throw new Error(`${s} is not on the page`);
      const r = found.getBoundingClientRect();
      return {
        left: r.left,
        right: r.right,
        top: r.top,
        bottom: r.bottom,
        width: r.width,
        height: r.height,
      };
    }, selector);

  /** Nothing wider than the window: the document, and each box named. */
  async function fits(page: Page, width: number, selectors: readonly string[]): Promise<void> {
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
    const inner = await page.evaluate(() => window.innerWidth);
    assert.equal(inner, width);
    assert.ok(scroll <= inner, `${page.url()}: the page is ${scroll} px wide in ${inner}`);
    for (const selector of selectors) {
      for (const found of await page.locator(selector).all()) {
        const r = await found.boundingBox();
        assert.ok(r, `${selector} is drawn`);
        assert.ok(
          r.x >= 0 && r.x + r.width <= inner + 0.5,
          `${selector} leaves the window: ${JSON.stringify(r)}`,
        );
      }
    }
  }

  for (const { name, width, height } of WIDTHS) {
    it(`${name} (${width} px): GraphiQL runs a query and its result is readable, the site above it`, async () => {
      const page = await signedIn(width, height);
      await page.goto(`${world.server.url}/graphiql`);
      await page.locator('.graphiql-container').waitFor();
      // The way back: the site's header, with the brand and the user's own profile.
      assert.equal(await page.getAttribute('header.top a.brand', 'href'), '/');
      assert.deepEqual(
        await page.$$eval('header.top nav a', (links) =>
          links.map((a) =>
            (a as unknown as { getAttribute(n: string): string }).getAttribute('href'),
          ),
        ),
        [
          '/dashboard/activity',
          '/alice',
          '/graphiql',
          '/profile/applications',
          '/profile/personal_access_tokens',
          '/profile/feed_token',
          '/profile/preferences',
          '/profile/two_factor_auth',
        ],
      );
      await page.getByRole('button', { name: 'Execute query (Ctrl-Enter)' }).click();
      await page
        .locator('.result-window .CodeMirror-line', { hasText: '"username": "alice"' })
        .waitFor();

      const editors = await box(page, '.graphiql-editors');
      const result = await box(page, '.graphiql-response');
      if (width === 390) {
        assert.ok(result.width >= 300, `the result pane is ${result.width} px wide at 390 px`);
        assert.ok(result.top >= editors.bottom - 1, 'the result is below the editor');
        assert.ok(result.height >= 150, `the result pane is ${result.height} px high`);
        assert.ok(editors.width >= 300, `the editor is ${editors.width} px wide`);
      } else {
        assert.ok(result.left >= editors.right - 1, 'the result is beside the editor');
        assert.ok(result.width >= 500, `the result pane is ${result.width} px wide`);
      }
      const header = await box(page, 'header.top');
      assert.ok(header.bottom <= editors.top, 'the navigation is above GraphiQL');
      await fits(page, width, ['header.top', '.graphiql-response', '.graphiql-editors']);
      await page.screenshot({ path: shot(`graphiql-${name}`) });
      // Signing out from GraphiQL works as from any page (behind the menu on a phone).
      if (width === 390) await page.click('label.nav-toggle');
      await page.click('header.top button:has-text("Sign out alice")');
      await page.waitForURL(`${world.server.url}/users/sign_in`);
      await page.context().close();
    });

    it(`${name} (${width} px): the calendar has its labels, the newest month in view, and a day narrows the list`, async () => {
      const page = await signedIn(width, height);
      await page.goto(`${world.server.url}/alice`);
      const months = (await page.locator('.calendar-grid .month').allInnerTexts()).filter(Boolean);
      // The clock says 2026-01-15: a year from 2025-01-16, a label where each month begins.
      // The first week (from Thursday 16 January) leaves no room for its own label before Feb.
      assert.deepEqual(months, [
        'Feb',
        'Mar',
        'Apr',
        'May',
        'Jun',
        'Jul',
        'Aug',
        'Sep',
        'Oct',
        'Nov',
        'Dec',
        'Jan',
      ]);
      assert.deepEqual(
        (await page.locator('.calendar-weekdays span').allInnerTexts()).filter(Boolean),
        ['Mon', 'Wed', 'Fri'],
      );
      const fontSize = await page
        .locator('.calendar-weekdays span')
        .nth(2)
        .evaluate((el) =>
          Number.parseFloat(
            (
              globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } }
            ).getComputedStyle(el).fontSize,
          ),
        );
      assert.ok(fontSize >= 11, `weekday labels at ${fontSize} px`);

      // The newest month and today are in view, beside the weekday names.
      const scroller = await box(page, '.calendar-scroll');
      const january = await page
        .locator('.calendar-grid .month', { hasText: 'Jan' })
        .last()
        .boundingBox();
      const today = await page
        .locator('.calendar-grid a.day[data-date="2026-01-15"]')
        .boundingBox();
      assert.ok(january && today);
      for (const [label, r] of [
        ['January', january],
        ['today', today],
      ] as const) {
        assert.ok(
          r.x >= scroller.left - 0.5 && r.x + r.width <= scroller.right + 0.5,
          `${label} is out of view: ${JSON.stringify(r)} in ${JSON.stringify(scroller)}`,
        );
      }
      await fits(page, width, ['.calendar', '.calendar-weekdays', '.calendar-scroll']);
      await page.screenshot({ path: shot(`calendar-${name}`), fullPage: width === 1440 });

      // A day is a link: the list below shows that day's events, and says which day it is.
      await page.click('.calendar-grid a.day[data-date="2026-01-08"]');
      await page.waitForURL(`${world.server.url}/alice?date=2026-01-08`);
      const listed = await page.$$eval('ol.events > li.event', (items) =>
        items.map((item) => Number((item as unknown as { dataset: { id: string } }).dataset.id)),
      );
      assert.deepEqual(listed, [world.ids.pushed, world.ids.merged]);
      assert.equal(
        (await page.locator('p.day-filter').innerText()).replace(/\s+/g, ' ').trim(),
        'Activity on Thursday 8 January 2026 (UTC) · Show every day',
      );
      assert.equal(
        await page.getAttribute('.calendar-grid a.day[aria-current="date"]', 'data-date'),
        '2026-01-08',
      );
      await fits(page, width, ['.calendar', 'ol.events', 'p.day-filter', 'a.feed-button']);
      await page.screenshot({ path: shot(`calendar-day-${name}`), fullPage: true });
      // One link style: the people, projects and "Show every day" links share one colour.
      const colours = await page
        .locator('main a:not(.button):not(.day):not(nav.tabs a)')
        .evaluateAll((links) =>
          links.map(
            (link) =>
              (
                globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }
              ).getComputedStyle(link).color,
          ),
        );
      assert.ok(colours.length >= 5);
      assert.deepEqual([...new Set(colours)], ['rgb(91, 60, 196)']);

      // A day further back than the newest weeks is brought into view with the list under it.
      await page.goto(`${world.server.url}/alice?date=2025-03-03`);
      const chosen = await page.locator('.calendar-grid a.day[aria-current="date"]').boundingBox();
      const view = await box(page, '.calendar-scroll');
      assert.ok(chosen);
      assert.equal(
        await page.getAttribute('.calendar-grid a.day[aria-current="date"]', 'data-date'),
        '2025-03-03',
      );
      assert.ok(
        chosen.x >= view.left - 0.5 && chosen.x + chosen.width <= view.right + 0.5,
        `the chosen day is out of view: ${JSON.stringify(chosen)} in ${JSON.stringify(view)}`,
      );
      await page.context().close();
    });

    it(`${name} (${width} px): the applications table wraps URIs at their seams and nothing overflows`, async () => {
      const page = await signedIn(width, height);
      await page.goto(`${world.server.url}/profile/applications`);
      await page.locator('table.list tbody tr').first().waitFor();
      assert.equal((await page.locator('code.app-id').innerText()).trim(), appId);
      await fits(page, width, ['table.list', 'table.list code', 'table.list td']);
      const table = await box(page, 'table.list');
      const card = await box(page, 'section.card');
      assert.ok(table.right <= card.right, 'the table stays in its card');
      if (width === 1440) {
        // Room enough: the App ID is one line, not broken mid-token.
        const id = await box(page, 'code.app-id');
        const line = await page.locator('code.app-id').evaluate((el) =>
          Number.parseFloat(
            (
              globalThis as unknown as {
                getComputedStyle(e: unknown): { lineHeight: string; fontSize: string };
              }
            ).getComputedStyle(el).fontSize,
          ),
        );
        assert.ok(id.height < line * 2, `the App ID wraps: ${id.height} px high`);
      }
      // A URI breaks after a slash or before its query, never inside a word that fits.
      const lines = await page.locator('td[data-label="Callback URLs"] code').evaluateAll((codes) =>
        codes.map((code) => {
          const c = code as unknown as { innerText: string; getClientRects(): ArrayLike<unknown> };
          return c.getClientRects().length;
        }),
      );
      assert.equal(lines.length, 2);
      await page.screenshot({ path: shot(`applications-${name}`), fullPage: true });
      await page.context().close();
    });
  }

  it('no script errors or policy violations on any page', () => {
    assert.deepEqual(problems, []);
  });
});
