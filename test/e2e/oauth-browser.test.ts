/**
 * Real Chromium (Debian's, through playwright-core): sign in, register an application, run the
 * reference client's flow, approve consent, see events; enable 2FA and sign in with a TOTP code.
 * Fails loudly when /usr/bin/chromium is missing — CI installs it.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import * as OTPAuth from 'otpauth';
import type { Browser } from 'playwright-core';
import { BROWSER_SKIP, launchChromium } from '../helpers/browser.js';
import { startExampleClient } from '../../examples/oauth-client/server.js';
import { type OAuthWorld, PASSWORD, startOAuthServer } from '../oauth/support.js';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);

describe('OAuth in a real browser', { skip: BROWSER_SKIP }, () => {
  let world: OAuthWorld;
  let browser: Browser;
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    world = await startOAuthServer();
    // The browser uses the real clock: TOTP codes are computed from it.
    (world.server.clock as unknown as { current: number }).current = Date.now();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  it('signs in, registers an application, and the example client shows the events after consent', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${world.server.url}/users/sign_in`);
    await page.fill('input[name=login]', 'alice');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(`${world.server.url}/dashboard/activity`);
    await page.goto(`${world.server.url}/profile/applications`);

    // The client's port is needed for its redirect URI: start it first with placeholder credentials.
    const probe = await startExampleClient({
      issuer: world.server.url,
      clientId: 'x',
      clientSecret: 'x',
    });
    const port = Number(new URL(probe.url).port);
    await probe.close();

    await page.fill('input[name=name]', 'Example client');
    await page.fill('textarea[name=redirect_uri]', `http://127.0.0.1:${port}/callback`);
    await page.check('input[name=scopes][value=read_user]');
    await page.uncheck('input[name=scopes][value=api]');
    await page.click('button:has-text("Save application")');
    const clientId = (await page.textContent('#application-id'))!.trim();
    const clientSecret = (await page.textContent('#application-secret'))!.trim();

    const example = await startExampleClient({
      issuer: world.server.url,
      clientId,
      clientSecret,
      port,
    });
    try {
      await page.goto(example.url);
      await page.click('#sign-in');
      await page.waitForSelector('button:has-text("Authorize")');
      assert.match((await page.textContent('h1'))!, /Authorize Example client/);
      await page.screenshot({ path: new URL('consent.png', ARTIFACTS).pathname, fullPage: true });
      await page.click('button:has-text("Authorize")');
      await page.waitForSelector('#events');
      assert.equal((await page.textContent('#username'))!.trim(), 'alice');
      const events = await page.locator('#events li.event').allTextContents();
      assert.equal(events.length, 1);
      assert.match(events[0]!, /opened Issue First bug/);
      await page.click('text=Refresh the token');
      await page.waitForSelector('#events li.event');
    } finally {
      await example.close();
      await context.close();
    }
  });

  it('signed out, the authorization request survives the sign-in and comes back to consent', async () => {
    const probe = await startExampleClient({
      issuer: world.server.url,
      clientId: 'x',
      clientSecret: 'x',
    });
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const { app, secret } = await world.server.services.oauth.applications.create(world.alice.id, {
      name: 'Returning client',
      redirectUris: `http://127.0.0.1:${port}/callback`,
      scopes: ['read_user'],
      confidential: true,
    });
    const example = await startExampleClient({
      issuer: world.server.url,
      clientId: app.uid,
      clientSecret: secret,
      port,
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(example.url);
      await page.click('#sign-in');
      await page.waitForURL(`${world.server.url}/users/sign_in`);
      const cookies = await context.cookies();
      const returnTo = cookies.find((c) => c.name === '_pulsegate_return_to');
      assert.equal(returnTo?.path, '/users');
      assert.equal(returnTo?.httpOnly, true);
      assert.equal(returnTo?.sameSite, 'Lax');
      await page.fill('input[name=login]', 'alice');
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForSelector('button:has-text("Authorize")');
      assert.match(new URL(page.url()).pathname, /^\/oauth\/authorize$/);
      assert.match((await page.textContent('h1'))!, /Authorize Returning client/);
      await page.click('button:has-text("Authorize")');
      await page.waitForSelector('#events');
      assert.equal((await page.textContent('#username'))!.trim(), 'alice');
      const left = await context.cookies();
      assert.equal(
        left.find((c) => c.name === '_pulsegate_return_to'),
        undefined,
        'used once',
      );
    } finally {
      await example.close();
      await context.close();
    }
  });

  it('the consent page cannot be framed', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(`${world.server.url}/users/sign_in`);
    assert.equal(await response!.headerValue('x-frame-options'), 'DENY');
    await context.close();
  });

  it('enables 2FA, then signs in with a TOTP code', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${world.server.url}/users/sign_in`);
    await page.fill('input[name=login]', 'bob');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(`${world.server.url}/dashboard/activity`);
    await page.goto(`${world.server.url}/profile/two_factor_auth`);
    const secret = (await page.textContent('#otp-secret'))!.trim();
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    await page.screenshot({ path: new URL('two-factor.png', ARTIFACTS).pathname });
    await page.fill('input[name=pin_code]', totp.generate({ timestamp: world.server.clock.now() }));
    await page.click('button:has-text("Register with two-factor app")');
    await page.waitForSelector('#recovery-codes');
    await page.click('button:has-text("Sign out")');
    await page.waitForURL(`${world.server.url}/users/sign_in`);

    await page.fill('input[name=login]', 'bob');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(`${world.server.url}/users/two_factor`);
    // A new time step, so the code differs from the one used to enrol (codes work once).
    (world.server.clock as unknown as { current: number }).current += 30_000;
    await page.fill(
      'input[name=otp_attempt]',
      totp.generate({ timestamp: world.server.clock.now() }),
    );
    await page.click('button:has-text("Verify")');
    await page.waitForURL(`${world.server.url}/dashboard/activity`);
    assert.match((await page.textContent('header'))!, /Sign out bob/);
    await context.close();
  });
});
