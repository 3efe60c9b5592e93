/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser). In CI (CI=true) a
 * missing browser fails the suite; elsewhere browser suites are skipped with the reason.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** `describe(..., { skip: BROWSER_SKIP })`: false when the suite must run. */
export const BROWSER_SKIP =
  process.env.CI !== 'true' &&
  !existsSync(CHROMIUM) &&
  `${CHROMIUM} is missing (apt-get install chromium)`;

export async function launchChromium(): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is required for the browser tests`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A new page in `context` whose script errors and console errors are pushed to `problems`; a
 * WebSocket that fails to connect is expected (the pages fall back to polling) and not recorded.
 */
export async function watchedPage(context: BrowserContext, problems: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    const text = message.text();
    if (message.type() === 'error' && !/WebSocket connection to .* failed/.test(text)) {
      problems.push(text);
    }
  });
  return page;
}

/** Signs in through the sign-in form of the server at `baseUrl`, and waits for the dashboard. */
export async function signInThroughForm(
  page: Page,
  baseUrl: string,
  login: string,
  password: string,
): Promise<void> {
  await page.goto(`${baseUrl}/users/sign_in`);
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', password);
  await page.click('button[type=submit]');
  await page.waitForURL(`${baseUrl}/dashboard/activity`);
}
