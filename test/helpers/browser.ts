/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser). In CI (CI=true) a
 * missing browser fails the suite; elsewhere browser suites are skipped with the reason.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

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
