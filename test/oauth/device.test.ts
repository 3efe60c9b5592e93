/**
 * The device authorization grant (RFC 8628) over plain HTTP: the device endpoint, polling answers
 * (authorization_pending, slow_down, access_denied, expired_token), single use, the verification
 * pages (code entry, confirmation, CSRF), guess throttling, and digests-only storage.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import {
  Browser,
  type OAuthWorld,
  PASSWORD,
  apiUser,
  basic,
  csrfOf,
  get,
  post,
  startOAuthServer,
  signedInBrowser,
} from './support.js';
import { DEVICE_GRANT, decide, enterCode, poll, startDevice } from './device-support.js';

const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

for (const dialect of DIALECTS) {
  describe(`device authorization grant (${dialect})`, () => {
    let world: OAuthWorld;
    let browser: Browser;
    before(async () => {
      world = await startOAuthServer({ dialect });
      browser = await signedInBrowser(world);
    });
    after(() => world.close());

    const later = (seconds: number) => world.server.clock.advance(seconds * 1000);

    it('answers RFC 8628 §3.2 with GitLab’s lifetimes, never cached', async () => {
      const reply = await post(
        world.server,
        '/oauth/authorize_device',
        { scope: 'read_user' },
        { authorization: basic(world.app.uid, world.app.secret) },
      );
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('cache-control'), 'no-store');
      const body = reply.body;
      assert.deepEqual(Object.keys(body).sort(), [
        'device_code',
        'expires_in',
        'interval',
        'user_code',
        'verification_uri',
        'verification_uri_complete',
      ]);
      assert.match(String(body.device_code), /^[A-Za-z0-9_-]{43}$/);
      assert.match(String(body.user_code), USER_CODE);
      assert.equal(body.verification_uri, `${world.server.url}/oauth/device`);
      assert.equal(
        body.verification_uri_complete,
        `${world.server.url}/oauth/device?user_code=${body.user_code}`,
      );
      assert.equal(body.expires_in, 300);
      assert.equal(body.interval, 5);
    });

    it('pending, approved, tokens once; a replayed device code revokes them', async () => {
      const start = await startDevice(world.server, world.publicApp, { confidential: false });
      const pending = await poll(world.server, world.publicApp, start.device_code, false);
      assert.equal(pending.status, 400);
      assert.equal(pending.body.error, 'authorization_pending');
      assert.equal(pending.headers.get('cache-control'), 'no-store');

      const done = await decide(browser, start.user_code, 'approve');
      assert.equal(done.status, 200);
      assert.match(done.text, /Device authorized/);
      later(5);
      const tokens = await poll(world.server, world.publicApp, start.device_code, false);
      assert.equal(tokens.status, 200, tokens.text);
      assert.equal(tokens.body.token_type, 'Bearer');
      assert.equal(tokens.body.scope, 'api read_user');
      assert.match(String(tokens.body.refresh_token), /^pgor-/);
      const me = await apiUser(world.server, tokens.body.access_token as string);
      assert.equal(me.body.username, 'alice');

      later(5);
      const replay = await poll(world.server, world.publicApp, start.device_code, false);
      assert.equal(replay.body.error, 'invalid_grant');
      assert.equal((await apiUser(world.server, tokens.body.access_token as string)).status, 401);
    });

    it('slow_down when polled faster than the interval, which then grows by 5 seconds', async () => {
      const start = await startDevice(world.server, world.app);
      assert.equal(
        (await poll(world.server, world.app, start.device_code)).body.error,
        'authorization_pending',
      );
      assert.equal(
        (await poll(world.server, world.app, start.device_code)).body.error,
        'slow_down',
      );
      later(5); // enough for the old interval, not for the new one (10 s)
      assert.equal(
        (await poll(world.server, world.app, start.device_code)).body.error,
        'slow_down',
      );
      later(15); // the interval is 15 s now
      assert.equal(
        (await poll(world.server, world.app, start.device_code)).body.error,
        'authorization_pending',
      );
    });

    it('denied: access_denied, for good', async () => {
      const start = await startDevice(world.server, world.app);
      const denied = await decide(browser, start.user_code, 'deny');
      assert.match(denied.text, /Request denied/);
      for (let i = 0; i < 2; i++) {
        later(5);
        const reply = await poll(world.server, world.app, start.device_code);
        assert.equal(reply.body.error, 'access_denied');
      }
      // The code cannot be approved after the denial.
      assert.equal((await enterCode(browser, start.user_code)).status, 422);
    });

    it('expired: expired_token, and the code can no longer be entered', async () => {
      const start = await startDevice(world.server, world.app);
      later(300);
      assert.equal(
        (await poll(world.server, world.app, start.device_code)).body.error,
        'expired_token',
      );
      const entered = await enterCode(browser, start.user_code);
      assert.equal(entered.status, 422);
      assert.match(entered.text, /not valid, or it has expired/);
    });

    it('user codes: case-insensitive, dash and spaces tolerated; the page names app and scopes', async () => {
      const start = await startDevice(world.server, world.app, { scope: 'read_user' });
      const sloppy = ` ${start.user_code.toLowerCase().replace('-', ' ')} `;
      const page = await enterCode(browser, sloppy);
      assert.equal(page.status, 200);
      assert.match(page.text, /Authorize <strong>Example App<\/strong> on a device\?/);
      assert.match(page.text, /<code>read_user<\/code> — Read-only access/);
      assert.doesNotMatch(page.text, /<code>api<\/code>/);
      assert.match(page.text, new RegExp(`<code id="user-code">${start.user_code}</code>`));
      assert.match(page.text, /<button type="submit" name="decision" value="approve"/);
      assert.match(page.text, /<button type="submit" name="decision" value="deny"/);
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.equal(page.headers.get('cache-control'), 'no-store');
    });

    it('verification_uri_complete: sign in first, then the code is pre-filled (still to be submitted)', async () => {
      const start = await startDevice(world.server, world.app);
      const anonymous = new Browser(world.server.url);
      const path = new URL(start.verification_uri_complete);
      const first = await anonymous.fetch(`${path.pathname}${path.search}`);
      assert.equal(first.status, 303);
      assert.equal(first.headers.get('location'), '/users/sign_in');
      const signedIn = await anonymous.signIn('alice', PASSWORD);
      assert.equal(signedIn.headers.get('location'), `${path.pathname}${path.search}`);
      const page = await anonymous.fetch(signedIn.headers.get('location')!);
      assert.match(page.text, new RegExp(`name="user_code"\\s+value="${start.user_code}"`));
      // Nothing was approved by visiting the link.
      later(5);
      assert.equal(
        (await poll(world.server, world.app, start.device_code)).body.error,
        'authorization_pending',
      );
    });

    it('forms need the CSRF token and a same-site origin', async () => {
      const start = await startDevice(world.server, world.app);
      const noToken = await browser.fetch('/oauth/device', {
        form: { user_code: start.user_code },
      });
      assert.equal(noToken.status, 403);
      const page = await enterCode(browser, start.user_code);
      const confirmNoToken = await browser.fetch('/oauth/device/confirm', {
        form: { user_code: start.user_code, decision: 'approve' },
      });
      assert.equal(confirmNoToken.status, 403);
      const crossSite = await browser.fetch('/oauth/device/confirm', {
        form: {
          authenticity_token: csrfOf(page.text),
          user_code: start.user_code,
          decision: 'approve',
        },
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(crossSite.status, 403);
      // Another signed-in browser's token does not fit this session.
      const other = await signedInBrowser(world, 'bob');
      const foreign = await other.fetch('/oauth/device/confirm', {
        form: {
          authenticity_token: csrfOf(page.text),
          user_code: start.user_code,
          decision: 'approve',
        },
      });
      assert.equal(foreign.status, 403);
      later(5);
      assert.equal(
        (await poll(world.server, world.app, start.device_code)).body.error,
        'authorization_pending',
      );
    });

    it('wrong user codes are throttled per session: then even the right code is refused (429)', async () => {
      const start = await startDevice(world.server, world.app);
      const guesser = await signedInBrowser(world, 'bob');
      for (let i = 0; i < 5; i++) {
        const wrong = await enterCode(guesser, 'BBBB-BBBB');
        assert.equal(wrong.status, 422);
      }
      const locked = await enterCode(guesser, start.user_code);
      assert.equal(locked.status, 429);
      assert.match(locked.headers.get('retry-after')!, /^\d+$/);
      // Sign-in itself is not locked by device-code guesses.
      assert.equal((await new Browser(world.server.url).signIn('bob', PASSWORD)).status, 303);
      later(600);
      const fresh = await startDevice(world.server, world.app);
      assert.equal((await enterCode(guesser, fresh.user_code)).status, 200);
    });

    it('clients: confidential ones authenticate, scopes are checked, a device code serves its own client only', async () => {
      const noSecret = await post(world.server, '/oauth/authorize_device', {
        client_id: world.app.uid,
      });
      assert.equal(noSecret.status, 401);
      assert.equal(noSecret.body.error, 'invalid_client');
      const unknown = await post(world.server, '/oauth/authorize_device', { client_id: 'nope' });
      assert.equal(unknown.body.error, 'invalid_client');
      const scope = await post(
        world.server,
        '/oauth/authorize_device',
        { scope: 'read_api' },
        { authorization: basic(world.app.uid, world.app.secret) },
      );
      assert.equal(scope.body.error, 'invalid_scope');
      assert.equal((await get(world.server, '/oauth/authorize_device')).status, 405);

      const start = await startDevice(world.server, world.app);
      await decide(browser, start.user_code, 'approve');
      later(5);
      const stolen = await poll(world.server, world.other, start.device_code);
      assert.equal(stolen.body.error, 'invalid_grant');
      const missing = await post(
        world.server,
        '/oauth/token',
        { grant_type: DEVICE_GRANT },
        { authorization: basic(world.app.uid, world.app.secret) },
      );
      assert.equal(missing.body.error, 'invalid_request');
      assert.equal((await poll(world.server, world.app, start.device_code)).status, 200);
    });

    it('stores only digests of device and user codes', async () => {
      const start = await startDevice(world.server, world.app);
      const rows = await world.server.store.db
        .selectFrom('oauth_device_grants')
        .selectAll()
        .execute();
      const dump = JSON.stringify(rows);
      assert.ok(rows.length > 0);
      assert.ok(!dump.includes(start.device_code));
      assert.ok(!dump.includes(start.user_code));
      assert.ok(!dump.includes(start.user_code.replace('-', '')));
    });
  });
}
