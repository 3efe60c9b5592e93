/**
 * The examples, for real: the example web client's "Sign in with pulsegate (OpenID Connect)" in
 * Chromium (ID token validated, userinfo shown), and examples/device-login.mjs signed in by a user
 * approving its code in Chromium.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { startExampleClient } from '../../examples/oauth-client/server.js';
import { BROWSER_SKIP, launchChromium } from '../helpers/browser.js';
import { registerOidcApp } from '../oauth/oidc-support.js';
import { type OAuthWorld, PASSWORD, startOAuthServer } from '../oauth/support.js';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);
const DEVICE_LOGIN = fileURLToPath(new URL('../../examples/device-login.mjs', import.meta.url));

describe('the OIDC examples in Chromium', { skip: BROWSER_SKIP }, () => {
  let world: OAuthWorld;
  let browser: Browser;
  let page: Page;
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    world = await startOAuthServer();
    // Real time: the clients check ID token times and the device example waits real seconds.
    (world.server.clock as unknown as { now(): number }).now = () => Date.now();
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    await page.goto(`${world.server.url}/users/sign_in`);
    await page.fill('input[name=login]', 'alice');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    // Signing in lands on the activity dashboard; the applications page is one click away.
    await page.waitForURL(`${world.server.url}/dashboard/activity`);
    await page.goto(`${world.server.url}/profile/applications`);
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  it('the example client signs in with OpenID Connect and shows the verified identity', async () => {
    const probe = await startExampleClient({
      issuer: world.server.url,
      clientId: 'x',
      clientSecret: 'x',
    });
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const app = await registerOidcApp(world, {
      name: 'Example client',
      redirectUris: `http://127.0.0.1:${port}/callback`,
    });
    const example = await startExampleClient({
      issuer: world.server.url,
      clientId: app.uid,
      clientSecret: app.secret,
      port,
    });
    try {
      await page.goto(example.url);
      await page.click('#sign-in-oidc');
      await page.waitForSelector('button:has-text("Authorize")');
      assert.match((await page.textContent('.scopes'))!, /openid — Sign you in/);
      await page.click('button:has-text("Authorize")');
      await page.waitForSelector('#identity');
      assert.equal((await page.textContent('#sub'))!.trim(), String(world.alice.id));
      assert.equal((await page.textContent('#email'))!.trim(), world.alice.email);
      assert.match((await page.textContent('#userinfo'))!, /"preferred_username": "alice"/);
      assert.equal(await page.locator('#events li.event').count(), 1);
      await page.screenshot({
        path: new URL('oidc-client.png', ARTIFACTS).pathname,
        fullPage: true,
      });
    } finally {
      await example.close();
    }
  });

  it('examples/device-login.mjs signs in once the code is approved in the browser', async () => {
    const app = await registerOidcApp(world, {
      name: 'device-login example',
      confidential: false,
      redirectUris: 'http://127.0.0.1/callback',
      scopes: ['openid', 'profile'],
    });
    const child = spawn(process.execPath, [DEVICE_LOGIN], {
      env: { ...process.env, PULSEGATE_URL: world.server.url, CLIENT_ID: app.uid },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const code = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        const match = /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.on('close', () => reject(new Error(`exited early: ${stdout} ${stderr}`)));
    });
    await page.goto(`${world.server.url}/oauth/device`);
    await page.fill('input[name=user_code]', code);
    await page.click('button:has-text("Continue")');
    await page.click('button[name=decision][value=approve]');
    await page.waitForSelector('#device-result');
    assert.equal(await exited, 0, stderr);
    assert.match(stdout, /Signed in as alice/);
    assert.match(stdout, /"nickname": "alice"/);
  });
});
