/**
 * The profile pages in real Chromium, at a desktop width and at 390 px (a phone): nothing wider
 * than the screen, the menu collapsed behind a button on the phone, the copy button beside a new
 * token, and revoking through its confirmation page. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_SKIP, launchChromium } from '../helpers/browser.js';
import { type OAuthWorld, PASSWORD, REDIRECT, startOAuthServer } from '../oauth/support.js';

// The DOM as seen from page.evaluate callbacks (the project's TypeScript has no DOM library).
declare const document: { documentElement: { scrollWidth: number } };
declare const navigator: { clipboard: { readText(): Promise<string> } };

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);
const shot = (name: string) => new URL(name, ARTIFACTS).pathname;

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

describe('profile pages in Chromium, desktop and phone', { skip: BROWSER_SKIP }, () => {
  let world: OAuthWorld;
  let browser: Browser;
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    world = await startOAuthServer();
    const { applications, accounts } = world.server.services.oauth;
    // Long values, as people register them: they must wrap, not widen the page.
    await applications.create(world.alice.id, {
      name: 'Continuous integration dashboard for the platform team',
      redirectUris: `${REDIRECT}\nhttps://dashboard.platform-team.example.org/oauth/callback/gitlab-compatible`,
      scopes: ['api', 'read_user', 'openid', 'profile', 'email'],
      confidential: true,
    });
    await accounts.createToken(world.alice.id, {
      name: 'deploy-bot-production-eu-west',
      scopes: ['api', 'read_api', 'read_user'],
      expiresAt: '2027-12-31',
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  async function signedIn(width: number, height: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: world.server.url,
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => assert.fail(error.message));
    await page.goto(`${world.server.url}/users/sign_in`);
    await page.fill('input[name=login]', 'alice');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button:has-text("Sign in")');
    await page.waitForURL(`${world.server.url}/dashboard/activity`);
    return page;
  }

  const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

  for (const { name, width, height } of WIDTHS) {
    it(`${name} (${width} px): the tables fit the screen`, async () => {
      const page = await signedIn(width, height);
      for (const [path, file] of [
        ['/profile/applications', 'applications'],
        ['/profile/personal_access_tokens', 'tokens'],
      ] as const) {
        await page.goto(`${world.server.url}${path}`);
        await page.locator('table.list tbody tr').first().waitFor();
        await page.screenshot({ path: shot(`${file}-${name}.png`), fullPage: true });
        assert.ok((await pageWidth(page)) <= width, `${path}: ${await pageWidth(page)} > ${width}`);
      }
      await page.context().close();
    });
  }

  it('phone: the menu collapses behind a button and opens on a tap; desktop shows it', async () => {
    const phone = await signedIn(390, 844);
    const menu = phone.locator('label.nav-toggle');
    const tokensLink = phone.locator('header nav a', { hasText: 'Access tokens' });
    assert.ok(await menu.isVisible());
    assert.equal(await tokensLink.isVisible(), false);
    await phone.screenshot({ path: shot('nav-phone-closed.png') });
    await menu.click();
    await tokensLink.waitFor({ state: 'visible' });
    assert.ok((await pageWidth(phone)) <= 390);
    await phone.screenshot({ path: shot('nav-phone-open.png') });
    await tokensLink.click();
    await phone.waitForURL(`${world.server.url}/profile/personal_access_tokens`);
    await phone.context().close();

    const desktop = await signedIn(1280, 800);
    assert.equal(await desktop.locator('label.nav-toggle').isVisible(), false);
    assert.ok(await desktop.locator('header nav a', { hasText: 'Access tokens' }).isVisible());
    await desktop.context().close();
  });

  for (const { name, width, height } of WIDTHS) {
    it(`${name}: a new token has a copy button that copies it; revoking asks first`, async () => {
      const page = await signedIn(width, height);
      await page.goto(`${world.server.url}/profile/personal_access_tokens`);
      await page.fill('input[name=name]', `laptop-${name}`);
      await page.check('input[name=scopes][value=read_api]');
      await page.click('button:has-text("Create personal access token")');
      const token = (await page.textContent('#created-token'))!.trim();
      const copy = page.locator('button[data-copy="created-token"]');
      await copy.waitFor({ state: 'visible' });
      await copy.click();
      await page.locator('button[data-copy="created-token"]', { hasText: 'Copied' }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
      assert.ok((await pageWidth(page)) <= width);
      await page.screenshot({ path: shot(`token-created-${name}.png`), fullPage: true });

      await page.getByRole('link', { name: `Revoke laptop-${name}` }).click();
      await page.locator('h1', { hasText: 'Revoke token' }).waitFor();
      assert.ok((await pageWidth(page)) <= width);
      await page.screenshot({ path: shot(`token-revoke-confirm-${name}.png`) });
      await page.click('button:has-text("Revoke token")');
      await page.getByText('The token was revoked. It no longer works.').waitFor();
      const res = await fetch(`${world.server.url}/api/v4/user`, {
        headers: { 'private-token': token },
      });
      assert.equal(res.status, 401);
      await page.context().close();
    });
  }

  it('phone: the sign-in page for an application names it', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const query = new URLSearchParams({
      client_id: world.app.uid,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'api',
    });
    await page.goto(`${world.server.url}/oauth/authorize?${query}`);
    await page.waitForURL(`${world.server.url}/users/sign_in`);
    await page.getByText('Sign in to continue to Example App.', { exact: false }).waitFor();
    assert.ok((await pageWidth(page)) <= 390);
    await page.screenshot({ path: shot('sign-in-for-app-phone.png') });
    await context.close();
  });
});
