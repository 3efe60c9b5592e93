/**
 * Anonymous visitors: what they may make the server keep (nothing in the database; a bounded,
 * signed return path in a cookie) and how fast they may ask for pages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as OTPAuth from 'otpauth';
import { buildServer } from '../../src/server.js';
import { RETURN_TO_MAX } from '../../src/web/session.js';
import { DIALECTS, type TestServer } from '../helpers/server.js';
import {
  Browser,
  type OAuthWorld,
  PASSWORD,
  REDIRECT,
  csrfOf,
  startOAuthServer,
} from '../oauth/support.js';

const RETURN_TO = '_pulsegate_return_to';

async function sessionRows(server: TestServer) {
  return server.store.db.selectFrom('web_sessions').selectAll().execute();
}

/** The Set-Cookie line for `name` in a response, or undefined. */
function setCookie(headers: Headers, name: string): string | undefined {
  return headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}

for (const dialect of DIALECTS) {
  describe(`anonymous visitors (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect });
    });
    after(() => world.close());

    /** An authorization request whose URL (path and query) is exactly `length` characters. */
    const authorizePath = (length: number) => {
      const query = { client_id: world.app.uid, redirect_uri: REDIRECT, response_type: 'code' };
      const bare = `/oauth/authorize?${new URLSearchParams({ ...query, state: '' })}`;
      const path = `/oauth/authorize?${new URLSearchParams({
        ...query,
        state: 's'.repeat(length - bare.length),
      })}`;
      assert.equal(path.length, length);
      return path;
    };

    it('sign-in and authorization pages store no session for visitors who do not sign in', async () => {
      const paths = ['/users/sign_in', authorizePath(200), authorizePath(6000), '/profile'];
      for (let i = 0; i < 10; i++) {
        for (const path of paths) {
          const cookieless = await fetch(`${world.server.url}${path}`, { redirect: 'manual' });
          assert.equal(
            cookieless.status,
            path === '/users/sign_in' ? 200 : path === '/profile' ? 303 : 302,
          );
          await cookieless.arrayBuffer();
        }
        // A browser keeping its cookies, as a real one would, stores nothing either.
        const browser = new Browser(world.server.url);
        assert.equal((await browser.fetch(authorizePath(300))).status, 302);
        assert.equal((await browser.fetch('/users/sign_in')).status, 200);
        assert.equal((await browser.fetch('/users/sign_in')).status, 200);
      }
      // Nor does a failed sign-in (one: failures count towards the address's lockout).
      const failed = await new Browser(world.server.url).signIn('nobody', 'wrong password');
      assert.equal(failed.status, 401);
      assert.deepEqual(await sessionRows(world.server), []);

      // Signing in is what creates one (so the count above can see rows).
      const browser = new Browser(world.server.url);
      assert.equal((await browser.signIn('alice', PASSWORD)).status, 303);
      const rows = await sessionRows(world.server);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.user_id, world.alice.id);
      assert.equal(rows[0]!.return_to, null);
    });

    it('the return path travels in a signed cookie, sent only to /users, and brings the user back', async () => {
      const browser = new Browser(world.server.url);
      const path = authorizePath(RETURN_TO_MAX);
      const first = await browser.fetch(path);
      assert.equal(first.status, 302);
      assert.equal(first.headers.get('location'), '/users/sign_in');
      assert.match(
        setCookie(first.headers, RETURN_TO)!,
        // The HMAC is base64; cookie 1.x percent-encodes its `+` and `/`.
        /^_pulsegate_return_to=[A-Za-z0-9_-]+\.(?:[A-Za-z0-9]|%2B|%2F){43}; Max-Age=3600; Path=\/users; HttpOnly; SameSite=Lax$/,
      );
      assert.ok(first.headers.getSetCookie().join('\n').length < 4096, 'fits in one cookie');
      const signedIn = await browser.signIn('alice', PASSWORD);
      assert.equal(signedIn.status, 303);
      assert.equal(signedIn.headers.get('location'), path);
      assert.match(setCookie(signedIn.headers, RETURN_TO)!, /^_pulsegate_return_to=; Max-Age=0;/);
      assert.equal(browser.cookies.has(RETURN_TO), false, 'used once');
    });

    it('a return path over the limit is not kept: after sign-in the user lands on the default page', async () => {
      const browser = new Browser(world.server.url);
      await browser.fetch(authorizePath(200));
      assert.equal(browser.cookies.has(RETURN_TO), true);
      // The longer request replaces the remembered one with nothing.
      const long = await browser.fetch(authorizePath(RETURN_TO_MAX + 1));
      assert.equal(long.status, 302);
      assert.match(setCookie(long.headers, RETURN_TO)!, /^_pulsegate_return_to=; Max-Age=0;/);
      assert.equal(browser.cookies.has(RETURN_TO), false);
      const signedIn = await browser.signIn('alice', PASSWORD);
      assert.equal(signedIn.status, 303);
      assert.equal(signedIn.headers.get('location'), '/dashboard/activity');

      const fresh = new Browser(world.server.url);
      const huge = await fresh.fetch(authorizePath(12_000));
      assert.equal(
        setCookie(huge.headers, RETURN_TO),
        undefined,
        'nothing to set, nothing to clear',
      );
      const again = await fresh.signIn('alice', PASSWORD);
      assert.equal(again.headers.get('location'), '/dashboard/activity');
      for (const row of await sessionRows(world.server)) assert.equal(row.return_to, null);
    });

    it('a forged or altered return path cookie is ignored', async () => {
      const genuine = new Browser(world.server.url);
      await genuine.fetch('/profile/personal_access_tokens');
      const signed = genuine.cookies.get(RETURN_TO)!;
      const [payload, signature] = [
        signed.slice(0, signed.lastIndexOf('.')),
        signed.slice(signed.lastIndexOf('.')),
      ];
      assert.equal(Buffer.from(payload, 'base64url').toString(), '/profile/personal_access_tokens');
      const other = Buffer.from('/profile/two_factor_auth').toString('base64url');
      for (const forged of [other, `${other}${signature}`, `${other}.AAAA`]) {
        const browser = new Browser(world.server.url);
        browser.cookies.set(RETURN_TO, forged);
        const reply = await browser.signIn('alice', PASSWORD);
        assert.equal(reply.headers.get('location'), '/dashboard/activity', forged);
      }
      const reply = await genuine.signIn('alice', PASSWORD);
      assert.equal(reply.headers.get('location'), '/profile/personal_access_tokens');
    });

    it('two-factor sign-in: the pending step is stored under a fresh id; the return path survives it', async () => {
      const { twoFactor } = world.server.services.oauth;
      const { secret } = await twoFactor.enrolment(world.bob.id);
      const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
      const codes = await twoFactor.enable(
        world.bob.id,
        totp.generate({ timestamp: world.server.clock.now() }),
      );
      assert.ok(codes);

      const browser = new Browser(world.server.url);
      const path = authorizePath(500);
      await browser.fetch(path);
      await browser.fetch('/users/sign_in');
      const anonymous = browser.cookies.get('_pulsegate_session');
      const step = await browser.signIn('bob', PASSWORD);
      assert.equal(step.status, 303);
      assert.equal(step.headers.get('location'), '/users/two_factor');
      assert.notEqual(browser.cookies.get('_pulsegate_session'), anonymous, 'a fresh id');
      const pending = (await sessionRows(world.server)).filter(
        (r) => r.pending_user_id === world.bob.id,
      );
      assert.equal(pending.length, 1);
      assert.equal(pending[0]!.user_id, null);

      const form = await browser.fetch('/users/two_factor');
      const done = await browser.fetch('/users/two_factor', {
        form: { authenticity_token: csrfOf(form.text), otp_attempt: codes[0]! },
      });
      assert.equal(done.status, 303);
      assert.equal(done.headers.get('location'), path);
      const rows = await sessionRows(world.server);
      assert.deepEqual(
        rows.filter((r) => r.pending_user_id === world.bob.id),
        [],
        'the pending session is gone',
      );
      assert.equal(rows.filter((r) => r.user_id === world.bob.id).length, 1);
    });

    it('two processes over one database share the cookie secret: one signs, the other verifies', async () => {
      const second = await buildServer({
        config: { ...world.server.config },
        store: world.server.store,
        clock: world.server.clock,
      });
      await second.app.listen({ host: '127.0.0.1', port: 0 });
      try {
        const address = second.app.server.address();
        assert.ok(address && typeof address === 'object');
        second.services.config.externalUrl = `http://127.0.0.1:${address.port}`;
        const browser = new Browser(world.server.url);
        const path = authorizePath(400);
        await browser.fetch(path);
        const elsewhere = new Browser(`http://127.0.0.1:${address.port}`);
        elsewhere.cookies.set(RETURN_TO, browser.cookies.get(RETURN_TO)!);
        const reply = await elsewhere.signIn('alice', PASSWORD);
        assert.equal(reply.status, 303);
        assert.equal(reply.headers.get('location'), path);
        const secrets = await world.server.store.db
          .selectFrom('server_secrets')
          .select('name')
          .execute();
        assert.deepEqual(secrets, [{ name: 'cookie' }]);
      } finally {
        await second.app.close();
      }
    });
  });

  describe(`page rate limit (${dialect})`, () => {
    const LIMIT = 6;
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect, config: { pageRateLimit: LIMIT } });
    });
    after(() => world.close());

    it('answers an HTML 429 with Retry-After past the budget, for every page; assets and the API are not counted', async () => {
      const browser = new Browser(world.server.url);
      const form = await browser.fetch('/users/sign_in');
      const authorize = `/oauth/authorize?${new URLSearchParams({
        client_id: world.app.uid,
        redirect_uri: REDIRECT,
        response_type: 'code',
      })}`;
      const statuses = [form.status];
      for (const path of ['/', authorize, '/profile/applications', '/users/two_factor']) {
        statuses.push((await browser.fetch(path)).status);
        assert.equal((await browser.fetch('/assets/style.css')).status, 200);
        assert.equal((await browser.fetch('/.well-known/oauth-authorization-server')).status, 200);
      }
      const lastAllowed = await browser.fetch('/users/sign_in', {
        form: { authenticity_token: csrfOf(form.text), login: 'alice', password: 'wrong' },
      });
      statuses.push(lastAllowed.status);
      assert.deepEqual(statuses, [200, 200, 302, 303, 303, 401]);

      for (const path of ['/users/sign_in', authorize, '/']) {
        const limited = await browser.fetch(path);
        assert.equal(limited.status, 429, path);
        assert.equal(limited.headers.get('content-type'), 'text/html; charset=utf-8');
        assert.equal(limited.headers.get('x-frame-options'), 'DENY');
        assert.equal(limited.headers.get('cache-control'), 'no-store');
        const retryAfter = limited.headers.get('retry-after')!;
        assert.match(retryAfter, /^\d+$/);
        assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, retryAfter);
        assert.match(limited.text, /<h1>Too many requests<\/h1>/);
        assert.match(limited.text, new RegExp(`Try again in ${retryAfter} seconds\\.`));
      }
      // A correct password is not even checked while the address is over its budget.
      const post = await browser.fetch('/users/sign_in', {
        form: { authenticity_token: csrfOf(form.text), login: 'alice', password: PASSWORD },
      });
      assert.equal(post.status, 429);
      assert.equal(browser.cookies.has('_pulsegate_session'), true);
      assert.deepEqual(await sessionRows(world.server), []);
      assert.equal((await browser.fetch('/assets/style.css')).status, 200);
    });
  });
}
