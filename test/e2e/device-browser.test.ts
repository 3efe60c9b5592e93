/**
 * The device flow end to end: openid-client (initiateDeviceAuthorization, then
 * pollDeviceAuthorizationGrant) polls while a real Chromium signs in on the verification page and
 * approves or denies; expiry and slow_down as the client meets them. The server's clock follows
 * the real one here, because openid-client waits real seconds between polls.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BROWSER_SKIP, launchChromium } from '../helpers/browser.js';
import {
  type OAuthWorld,
  PASSWORD,
  type RegisteredApp,
  startOAuthServer,
} from '../oauth/support.js';
import { registerOidcApp } from '../oauth/oidc-support.js';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);

describe('device flow with openid-client and Chromium', { skip: BROWSER_SKIP }, () => {
  let world: OAuthWorld;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let app: RegisteredApp;
  let config: client.Configuration;
  let offset = 0;
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    world = await startOAuthServer();
    (world.server.clock as unknown as { now(): number }).now = () => Date.now() + offset;
    app = await registerOidcApp(world, {
      name: 'pulsegate CLI',
      confidential: false,
      redirectUris: 'http://127.0.0.1/callback',
      scopes: ['openid', 'profile', 'read_user'],
    });
    config = await client.discovery(new URL(world.server.url), app.uid, {}, client.None(), {
      execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
    });
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await world?.close();
  });

  /** On the verification page (signed in): type the code, continue, then decide. */
  const answer = async (userCode: string, decision: 'approve' | 'deny') => {
    await page.goto(`${world.server.url}/oauth/device`);
    await page.fill('input[name=user_code]', userCode.toLowerCase().replace('-', ''));
    await page.click('button:has-text("Continue")');
    await page.waitForSelector(`button[name=decision][value=${decision}]`);
    await page.click(`button[name=decision][value=${decision}]`);
    await page.waitForSelector('#device-result');
  };

  it('approves in the browser; the polling client gets tokens and a verified ID token', async () => {
    const device = await client.initiateDeviceAuthorization(config, {
      scope: 'openid profile read_user',
    });
    const polling = client.pollDeviceAuthorizationGrant(config, device);
    // The complete URI: sign in first, then the code is pre-filled.
    await page.goto(device.verification_uri_complete!);
    await page.waitForURL(`${world.server.url}/users/sign_in`);
    await page.fill('input[name=login]', 'alice');
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForSelector('input[name=user_code]');
    assert.equal(await page.inputValue('input[name=user_code]'), device.user_code);
    await page.click('button:has-text("Continue")');
    await page.waitForSelector('button[name=decision][value=approve]');
    assert.match((await page.textContent('h1'))!, /Authorize pulsegate CLI on a device/);
    assert.equal((await page.textContent('#user-code'))!.trim(), device.user_code);
    await page.screenshot({
      path: new URL('device-confirm.png', ARTIFACTS).pathname,
      fullPage: true,
    });
    await page.click('button[name=decision][value=approve]');
    assert.match((await page.textContent('#device-result'))!, /Device authorized/);

    const tokens = await polling;
    const claims = tokens.claims()!;
    assert.equal(claims.sub, String(world.alice.id));
    assert.equal(claims.preferred_username, 'alice');
    assert.equal(claims.aud, app.uid);
    assert.equal(typeof claims.auth_time, 'number');
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    assert.equal(info.nickname, 'alice');
    // Single use: the same device code again is refused.
    await assert.rejects(
      client.pollDeviceAuthorizationGrant(config, { ...device, interval: 0 }),
      (e: client.ResponseBodyError) => e.error === 'invalid_grant',
    );
  });

  it('denied in the browser: the client stops with access_denied', async () => {
    const device = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const polling = client.pollDeviceAuthorizationGrant(config, device);
    await answer(device.user_code, 'deny');
    assert.match((await page.textContent('#device-result'))!, /Request denied/);
    await assert.rejects(polling, (e: client.ResponseBodyError) => e.error === 'access_denied');
  });

  it('nobody answers in time: the client stops with expired_token', async () => {
    const device = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const polling = client.pollDeviceAuthorizationGrant(config, device, undefined, {
      signal: AbortSignal.timeout(30_000),
    });
    offset += device.expires_in * 1000;
    await assert.rejects(polling, (e: client.ResponseBodyError) => e.error === 'expired_token');
  });

  it('slow_down: the client backs off by 5 seconds and still gets its tokens', async () => {
    const device = await client.initiateDeviceAuthorization(config, { scope: 'read_user' });
    const seen: string[] = [];
    let doubled = false;
    let firstPoll!: () => void;
    const polledOnce = new Promise<void>((resolve) => (firstPoll = resolve));
    config[client.customFetch] = async (url, options) => {
      const isPoll = url.endsWith('/oauth/token');
      // An over-eager twin poll just before the client's first one: that one must slow down.
      if (isPoll && !doubled) {
        doubled = true;
        await fetch(url, options as RequestInit);
      }
      const res = await fetch(url, options as RequestInit);
      if (isPoll && res.status === 400) {
        seen.push(((await res.clone().json()) as { error: string }).error);
      }
      if (isPoll) firstPoll();
      return res;
    };
    try {
      const polling = client.pollDeviceAuthorizationGrant(config, device);
      // Approve only once the doubled poll has happened, so both meet a pending request.
      await polledOnce;
      await answer(device.user_code, 'approve');
      const tokens = await polling;
      assert.equal(tokens.scope, 'read_user');
      assert.equal(seen[0], 'slow_down');
    } finally {
      delete (config as { [client.customFetch]?: unknown })[client.customFetch];
    }
  });
});
