/**
 * A real Chromium stars a project from its page and follows a user from theirs, at a phone's width
 * (390 px) and a desktop's (1440 px): the button is on screen and does not overflow the page, the
 * form posts with the session's token, and the page comes back with the new state and count.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  BROWSER_SKIP,
  launchChromium,
  signInThroughForm,
  watchedPage,
} from '../helpers/browser.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type OAuthWorld, PASSWORD, startOAuthServer } from '../oauth/support.js';

/** What `page.evaluate` reads in the browser (the DOM library is not in the Node build). */
declare const document: { documentElement: { scrollWidth: number } };

describe('star and follow from the pages in Chromium', { skip: BROWSER_SKIP }, () => {
  let world: OAuthWorld;
  let browser: Browser;

  before(async () => {
    world = await startOAuthServer();
    const f = new Fixtures(world.server.store);
    await f.project('alice/rocket', world.alice.id, 'public');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  /** The element is within the viewport's width, and the page does not scroll sideways. */
  async function fits(page: Page, selector: string, width: number) {
    const box = await page.locator(selector).boundingBox();
    assert.ok(box, `${selector} is shown`);
    assert.ok(box.x >= 0 && box.x + box.width <= width, `${selector} at ${box.x}+${box.width}`);
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scroll <= width, `page is ${scroll} px wide at ${width}`);
  }

  for (const width of [390, 1440]) {
    it(`stars, unstars, follows and unfollows at ${width} px`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const problems: string[] = [];
      const page = await watchedPage(context, problems);
      try {
        await signInThroughForm(page, world.server.url, 'bob', PASSWORD);

        await page.goto(`${world.server.url}/alice/rocket`);
        await fits(page, 'form.social button', width);
        assert.equal((await page.textContent('form.social .social-count'))!.trim(), '0 stars');
        await page.click('form.social button');
        await page.waitForSelector('form.social button[aria-pressed="true"]');
        assert.match((await page.textContent('form.social button'))!, /Unstar/);
        assert.equal((await page.textContent('form.social .social-count'))!.trim(), '1 star');
        await page.click('form.social button');
        await page.waitForSelector('form.social button[aria-pressed="false"]');
        assert.equal((await page.textContent('form.social .social-count'))!.trim(), '0 stars');

        await page.goto(`${world.server.url}/alice`);
        await fits(page, 'form.social button', width);
        await page.click('form.social button');
        await page.waitForSelector('form.social button[aria-pressed="true"]');
        assert.equal(
          (await page.locator('form.social .social-count').first().textContent())!.trim(),
          '1 follower',
        );
        await page.click('form.social button');
        await page.waitForSelector('form.social button[aria-pressed="false"]');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
