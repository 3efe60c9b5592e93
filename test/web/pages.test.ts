import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as OTPAuth from 'otpauth';
import { THROTTLE_POLICIES } from '../../src/services/accounts/throttle.js';
import { DIALECTS } from '../helpers/server.js';
import {
  Browser,
  type OAuthWorld,
  PASSWORD,
  REDIRECT,
  apiUser,
  basic,
  csrfOf,
  obtainTokens,
  post,
  startOAuthServer,
  addUser,
} from '../oauth/support.js';

function assertHtmlHeaders(headers: Headers) {
  assert.equal(headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(headers.get('x-frame-options'), 'DENY');
  assert.match(headers.get('content-security-policy')!, /frame-ancestors 'none'/);
  assert.equal(headers.get('referrer-policy'), 'no-referrer');
}

for (const dialect of DIALECTS) {
  describe(`web sign-in (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect });
    });
    after(() => world.close());

    it('sign-in form: session cookie HttpOnly + SameSite=Lax (no Secure on http), CSRF token, 303', async () => {
      const browser = new Browser(world.server.url);
      const page = await browser.fetch('/users/sign_in');
      assert.equal(page.status, 200);
      assertHtmlHeaders(page.headers);
      const cookie = page.headers.get('set-cookie')!;
      assert.match(
        cookie,
        /^_pulsegate_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/,
      );
      const before = browser.cookies.get('_pulsegate_session');
      const reply = await browser.fetch('/users/sign_in', {
        form: { authenticity_token: csrfOf(page.text), login: 'alice', password: PASSWORD },
      });
      assert.equal(reply.status, 303);
      assert.equal(reply.headers.get('location'), '/dashboard/activity');
      assert.notEqual(browser.cookies.get('_pulsegate_session'), before, 'session id rotated');
      assert.equal((await browser.fetch('/profile/applications')).status, 200);
    });

    it('without a CSRF token or cross-site, the sign-in POST is refused', async () => {
      const browser = new Browser(world.server.url);
      await browser.fetch('/users/sign_in');
      const noToken = await browser.fetch('/users/sign_in', {
        form: { login: 'alice', password: PASSWORD },
      });
      assert.equal(noToken.status, 403);
      const page = await browser.fetch('/users/sign_in');
      const cross = await browser.fetch('/users/sign_in', {
        form: { authenticity_token: csrfOf(page.text), login: 'alice', password: PASSWORD },
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(cross.status, 403);
    });

    it('bad credentials: one generic message for unknown users and wrong passwords, escaped echo', async () => {
      const browser = new Browser(world.server.url);
      const wrong = await browser.signIn('alice', 'nope');
      const unknown = await browser.signIn('<b>nobody</b>', 'nope');
      for (const reply of [wrong, unknown]) {
        assert.equal(reply.status, 401);
        assert.match(reply.text, /Invalid login or password\./);
      }
      assert.match(unknown.text, /&lt;b&gt;nobody&lt;\/b&gt;/);
      assert.doesNotMatch(unknown.text, /<b>nobody/);
    });

    it('throttles repeated failures per account (429 + Retry-After), even with the right password', async () => {
      await addUser(world, 'dave');
      const browser = new Browser(world.server.url);
      for (let i = 0; i < THROTTLE_POLICIES.account.limit; i++)
        await browser.signIn('dave', 'wrong');
      const locked = await browser.signIn('dave', PASSWORD);
      assert.equal(locked.status, 429);
      assert.match(locked.headers.get('retry-after')!, /^\d+$/);
      world.server.clock.advance(THROTTLE_POLICIES.account.windowMs);
      assert.equal((await browser.signIn('dave', PASSWORD)).status, 303);
    });

    it('sign out ends the session', async () => {
      const browser = new Browser(world.server.url);
      await browser.signIn('alice', PASSWORD);
      const page = await browser.fetch('/profile/applications');
      const out = await browser.fetch('/users/sign_out', {
        form: { authenticity_token: csrfOf(page.text) },
      });
      assert.equal(out.status, 303);
      const after = await browser.fetch('/profile/applications');
      assert.equal(after.status, 303);
      assert.equal(after.headers.get('location'), '/users/sign_in');
    });

    it('an https external URL makes the cookie Secure', async () => {
      const other = await startOAuthServer({
        dialect,
        config: { externalUrl: 'https://pulse.example.org' },
      });
      try {
        const res = await fetch(`${other.server.url}/users/sign_in`);
        // Attribute order is the cookie serializer's (@fastify/cookie): Secure before SameSite.
        assert.match(
          res.headers.get('set-cookie')!,
          /^_pulsegate_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
        );
      } finally {
        await other.close();
      }
    });
  });

  describe(`profile pages (${dialect})`, () => {
    let world: OAuthWorld;
    let browser: Browser;
    before(async () => {
      world = await startOAuthServer({ dialect });
      browser = new Browser(world.server.url);
      await browser.signIn('alice', PASSWORD);
    });
    after(() => world.close());

    const csrf = async (path: string) => csrfOf((await browser.fetch(path)).text);

    it('applications: create shows App ID and secret once; the list never shows the secret', async () => {
      const token = await csrf('/profile/applications');
      const params = new URLSearchParams({
        authenticity_token: token,
        name: 'My <App>',
        redirect_uri: 'https://my.example/cb\nhttp://127.0.0.1/cb',
        confidential: '1',
      });
      params.append('scopes', 'api');
      params.append('scopes', 'read_user');
      const created = await browser.fetch('/profile/applications', { form: params });
      assert.equal(created.status, 201);
      assertHtmlHeaders(created.headers);
      assert.equal(created.headers.get('cache-control'), 'no-store');
      const uid = /id="application-id">([^<]+)</.exec(created.text)![1]!;
      const secret = /id="application-secret">([^<]+)</.exec(created.text)![1]!;
      assert.match(created.text, /My &lt;App&gt;/);
      const list = await browser.fetch('/profile/applications');
      assert.ok(list.text.includes(uid));
      assert.ok(!list.text.includes(secret));
      const password = await post(
        world.server,
        '/oauth/token',
        { grant_type: 'password', username: 'alice', password: PASSWORD },
        { authorization: basic(uid, secret) },
      );
      assert.equal(password.status, 200);
    });

    it('applications: invalid redirect URIs and scopes are refused with messages', async () => {
      const token = await csrf('/profile/applications');
      for (const redirect_uri of [
        'http://evil.example/cb',
        'javascript:alert(1)',
        'https://x.example/cb#f',
        'not a uri',
      ]) {
        const reply = await browser.fetch('/profile/applications', {
          form: { authenticity_token: token, name: 'Bad', redirect_uri, scopes: 'api' },
        });
        assert.equal(reply.status, 422, redirect_uri);
        assert.match(reply.text, /Redirect URI/);
      }
      const noScope = await browser.fetch('/profile/applications', {
        form: { authenticity_token: token, name: 'Bad', redirect_uri: 'https://x.example/cb' },
      });
      assert.equal(noScope.status, 422);
    });

    it('renewing the secret retires the old one; deleting revokes the tokens', async () => {
      const tokens = await obtainTokens(world);
      const token = await csrf('/profile/applications');
      const renewed = await browser.fetch(`/profile/applications/${world.app.id}/renew_secret`, {
        form: { authenticity_token: token },
      });
      assert.equal(renewed.status, 200);
      const secret = /id="application-secret">([^<]+)</.exec(renewed.text)![1]!;
      const old = await post(
        world.server,
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
        { authorization: basic(world.app.uid, world.app.secret) },
      );
      assert.equal(old.status, 401);
      world.app.secret = secret;
      assert.equal(
        (await apiUser(world.server, tokens.access_token)).status,
        200,
        'existing tokens live on',
      );
      const deleted = await browser.fetch(`/profile/applications/${world.app.id}/delete`, {
        form: { authenticity_token: token },
      });
      assert.equal(deleted.status, 303);
      const api = await apiUser(world.server, tokens.access_token);
      assert.equal(
        api.body.error_description,
        'Token was revoked. You have to re-authorize from the user.',
      );
      const gone = await browser.fetch(
        `/oauth/authorize?${new URLSearchParams({ client_id: world.app.uid, redirect_uri: REDIRECT, response_type: 'code' })}`,
      );
      assert.equal(gone.status, 400);
    });

    it("another user's application cannot be deleted", async () => {
      const bob = new Browser(world.server.url);
      await bob.signIn('bob', PASSWORD);
      const token = csrfOf((await bob.fetch('/profile/applications')).text);
      const reply = await bob.fetch(`/profile/applications/${world.other.id}/delete`, {
        form: { authenticity_token: token },
      });
      assert.equal(reply.status, 404);
    });

    it('personal access tokens: create (shown once), use, list, revoke', async () => {
      const token = await csrf('/profile/personal_access_tokens');
      const created = await browser.fetch('/profile/personal_access_tokens', {
        form: {
          authenticity_token: token,
          name: 'laptop',
          scopes: 'read_user',
          expires_at: '2026-12-31',
        },
      });
      assert.equal(created.status, 201);
      const pat = /id="created-token">([^<]+)</.exec(created.text)![1]!;
      assert.equal(
        (await world.server.services.credentials.authenticate({ privateTokenHeader: pat }))?.user
          .username,
        'alice',
      );
      const list = await browser.fetch('/profile/personal_access_tokens');
      assert.ok(list.text.includes('laptop'));
      assert.ok(!list.text.includes(pat));
      const id = /personal_access_tokens\/(\d+)\/revoke/.exec(list.text)![1]!;
      const revoked = await browser.fetch(`/profile/personal_access_tokens/${id}/revoke`, {
        form: { authenticity_token: token },
      });
      assert.equal(revoked.status, 303);
      const res = await fetch(`${world.server.url}/api/v4/user`, {
        headers: { 'private-token': pat },
      });
      assert.equal(res.status, 401);
      const past = await browser.fetch('/profile/personal_access_tokens', {
        form: { authenticity_token: token, name: 'old', scopes: 'api', expires_at: '2020-01-01' },
      });
      assert.equal(past.status, 422);
    });

    it('personal access tokens: the form offers write_repository; a push token is made for pushes only', async () => {
      const page = await browser.fetch('/profile/personal_access_tokens');
      assert.match(
        page.text,
        /<input\s+type="checkbox"\s+name="scopes"\s+value="write_repository"/,
      );
      const token = csrfOf(page.text);
      const created = await browser.fetch('/profile/personal_access_tokens', {
        form: { authenticity_token: token, name: 'post-receive', scopes: 'write_repository' },
      });
      assert.equal(created.status, 201, created.text);
      const pat = /id="created-token">([^<]+)</.exec(created.text)![1]!;
      const principal = await world.server.services.credentials.authenticate({
        privateTokenHeader: pat,
      });
      assert.deepEqual(principal?.scopes, ['write_repository']);
      const user = await fetch(`${world.server.url}/api/v4/user`, {
        headers: { 'private-token': pat },
      });
      assert.equal(user.status, 403);
    });

    it('a NUL character in any form field is a 400 page, and nothing is made', async () => {
      const token = await csrf('/profile/personal_access_tokens');
      const forms: Array<[string, Record<string, string>]> = [
        ['/profile/personal_access_tokens', { name: 'a\u0000b', scopes: 'api' }],
        [
          '/profile/applications',
          { name: 'a\u0000b', redirect_uri: 'https://app.example.com/cb', scopes: 'api' },
        ],
      ];
      for (const [path, fields] of forms) {
        const before = (await browser.fetch(path)).text;
        const reply = await browser.fetch(path, { form: { authenticity_token: token, ...fields } });
        assert.equal(reply.status, 400, `${path}: ${reply.text}`);
        assert.match(reply.text, /A field holds a NUL character/);
        const after = (await browser.fetch(path)).text;
        assert.equal(
          after.replace(/name="authenticity_token" value="[^"]*"/g, ''),
          before.replace(/name="authenticity_token" value="[^"]*"/g, ''),
        );
      }
    });

    it('two-factor: enrol with QR and key, confirm, recovery codes once; sign-in then asks for a code', async () => {
      const bob = new Browser(world.server.url);
      await bob.signIn('bob', PASSWORD);
      const page = await bob.fetch('/profile/two_factor_auth');
      assert.equal(page.status, 200);
      assert.match(page.text, /<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      const secret = /id="otp-secret">([A-Z2-7]+)</.exec(page.text)![1]!;
      const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
      const wrong = await bob.fetch('/profile/two_factor_auth', {
        form: { authenticity_token: csrfOf(page.text), pin_code: '000000' },
      });
      assert.equal(wrong.status, 422);
      const confirmed = await bob.fetch('/profile/two_factor_auth', {
        form: {
          authenticity_token: csrfOf(page.text),
          pin_code: totp.generate({ timestamp: world.server.clock.now() }),
        },
      });
      assert.equal(confirmed.status, 200);
      const codes = [...confirmed.text.matchAll(/<li><code>([0-9a-f]{16})<\/code><\/li>/g)].map(
        (m) => m[1]!,
      );
      assert.equal(codes.length, 10);
      const stored = await world.server.store.users.byId(world.bob.id);
      assert.equal(stored!.two_factor_enabled, 1);
      assert.ok(!stored!.otp_recovery_digests!.includes(codes[0]!));

      const grant = await post(world.server, '/oauth/token', {
        grant_type: 'password',
        username: 'bob',
        password: PASSWORD,
      });
      assert.equal(grant.body.error, 'invalid_grant');

      const fresh = new Browser(world.server.url);
      const step = await fresh.signIn('bob', PASSWORD);
      assert.equal(step.status, 303);
      assert.equal(step.headers.get('location'), '/users/two_factor');
      assert.equal((await fresh.fetch('/profile/applications')).status, 303, 'not signed in yet');
      const otpPage = await fresh.fetch('/users/two_factor');
      world.server.clock.advance(30_000);
      const code = totp.generate({ timestamp: world.server.clock.now() });
      const bad = await fresh.fetch('/users/two_factor', {
        form: { authenticity_token: csrfOf(otpPage.text), otp_attempt: '123456' },
      });
      assert.equal(bad.status, 401);
      const ok = await fresh.fetch('/users/two_factor', {
        form: { authenticity_token: csrfOf(otpPage.text), otp_attempt: code },
      });
      assert.equal(ok.status, 303);
      assert.equal((await fresh.fetch('/profile/applications')).status, 200);

      const replay = new Browser(world.server.url);
      await replay.signIn('bob', PASSWORD);
      const replayPage = await replay.fetch('/users/two_factor');
      const reused = await replay.fetch('/users/two_factor', {
        form: { authenticity_token: csrfOf(replayPage.text), otp_attempt: code },
      });
      assert.equal(reused.status, 401, 'a TOTP code works once');
      const recovery = await replay.fetch('/users/two_factor', {
        form: { authenticity_token: csrfOf(replayPage.text), otp_attempt: codes[0]! },
      });
      assert.equal(recovery.status, 303);
      const again = new Browser(world.server.url);
      await again.signIn('bob', PASSWORD);
      const againPage = await again.fetch('/users/two_factor');
      const spent = await again.fetch('/users/two_factor', {
        form: { authenticity_token: csrfOf(againPage.text), otp_attempt: codes[0]! },
      });
      assert.equal(spent.status, 401, 'a recovery code works once');
    });
  });
}
