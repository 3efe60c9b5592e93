/**
 * OIDC `prompt` and `max_age` on /oauth/authorize: `none` answers without a page (a code when
 * consent stands, else login_required / consent_required with state and iss), `login` and an
 * exceeded `max_age` sign the user out and in again without looping, `consent` always asks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import {
  Browser,
  type OAuthWorld,
  PASSWORD,
  REDIRECT,
  type RegisteredApp,
  basic,
  hiddenFields,
  pkcePair,
  post,
  startOAuthServer,
  signedInBrowser,
} from './support.js';
import { decodeJwt, registerOidcApp } from './oidc-support.js';

for (const dialect of DIALECTS) {
  describe(`prompt and max_age (${dialect})`, () => {
    let world: OAuthWorld;
    let app: RegisteredApp;
    const pkce = pkcePair();
    before(async () => {
      world = await startOAuthServer({ dialect });
      app = await registerOidcApp(world);
    });
    after(() => world.close());

    const query = (extra: Record<string, string> = {}) =>
      `/oauth/authorize?${new URLSearchParams({
        client_id: app.uid,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'openid profile',
        state: 'st8',
        nonce: 'n-0S6_WzA2Mj',
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
        ...extra,
      })}`;

    const redirectParams = (location: string | null) => {
      assert.ok(location?.startsWith(REDIRECT), String(location));
      return new URL(location!).searchParams;
    };

    const exchange = (code: string) =>
      post(
        world.server,
        '/oauth/token',
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: pkce.verifier,
        },
        { authorization: basic(app.uid, app.secret) },
      );

    /** Approves on the consent page; returns the token response. */
    const approve = async (browser: Browser, extra: Record<string, string> = {}) => {
      const page = await browser.fetch(query(extra));
      assert.equal(page.status, 200, page.headers.get('location') ?? '');
      const reply = await browser.fetch('/oauth/authorize', {
        form: { ...hiddenFields(page.text), decision: 'approve' },
      });
      return exchange(redirectParams(reply.headers.get('location')).get('code')!);
    };

    it('prompt=none without a session: login_required, with state and iss, no page', async () => {
      const reply = await new Browser(world.server.url).fetch(query({ prompt: 'none' }));
      assert.equal(reply.status, 302);
      const params = redirectParams(reply.headers.get('location'));
      assert.equal(params.get('error'), 'login_required');
      assert.equal(params.get('state'), 'st8');
      assert.equal(params.get('iss'), world.server.url);
      assert.equal(params.get('code'), null);
    });

    it('prompt=none: consent_required until consent stands, then a code without a page; revoking withdraws it', async () => {
      const browser = await signedInBrowser(world, 'bob');
      const first = await browser.fetch(query({ prompt: 'none' }));
      const denied = redirectParams(first.headers.get('location'));
      assert.equal(denied.get('error'), 'consent_required');
      assert.equal(denied.get('state'), 'st8');
      assert.equal(denied.get('iss'), world.server.url);

      const tokens = await approve(browser);
      assert.equal(tokens.status, 200);
      const silent = await browser.fetch(query({ prompt: 'none', nonce: 'again' }));
      assert.equal(silent.status, 302);
      const params = redirectParams(silent.headers.get('location'));
      assert.equal(params.get('state'), 'st8');
      const issued = await exchange(params.get('code')!);
      assert.equal(issued.status, 200);
      assert.equal(decodeJwt(issued.body.id_token as string).payload.nonce, 'again');

      // Wider scopes than consented: still consent_required.
      const wider = await browser.fetch(query({ prompt: 'none', scope: 'openid profile email' }));
      assert.equal(redirectParams(wider.headers.get('location')).get('error'), 'consent_required');

      for (const token of [tokens.body.refresh_token, issued.body.refresh_token]) {
        await post(
          world.server,
          '/oauth/revoke',
          { token: token as string },
          { authorization: basic(app.uid, app.secret) },
        );
      }
      const withdrawn = await browser.fetch(query({ prompt: 'none' }));
      assert.equal(
        redirectParams(withdrawn.headers.get('location')).get('error'),
        'consent_required',
      );
    });

    it('prompt=consent asks even when consent stands', async () => {
      const browser = await signedInBrowser(world, 'bob');
      assert.equal((await approve(browser)).status, 200);
      const page = await browser.fetch(query({ prompt: 'consent' }));
      assert.equal(page.status, 200);
      assert.match(page.text, /Authorize <strong>OIDC App<\/strong>/);
    });

    it('prompt=login signs the user out, and after signing in again comes back to consent (no loop)', async () => {
      const browser = await signedInBrowser(world);
      const oldCookie = [...browser.cookies.values()].join();
      const reply = await browser.fetch(query({ prompt: 'login' }));
      assert.equal(reply.status, 302);
      assert.equal(reply.headers.get('location'), '/users/sign_in');
      // The old session is gone: its cookie no longer opens the profile.
      const stale = new Browser(world.server.url);
      stale.cookies.set('_pulsegate_session', oldCookie.split(',')[0]!);
      assert.equal((await stale.fetch('/profile/applications')).status, 303);

      world.server.clock.advance(5_000);
      const signedIn = await browser.signIn('alice', PASSWORD);
      assert.equal(signedIn.status, 303);
      const back = signedIn.headers.get('location')!;
      assert.match(back, /^\/oauth\/authorize\?/);
      assert.equal(new URLSearchParams(back.split('?')[1]).get('prompt'), null);
      const page = await browser.fetch(back);
      assert.equal(page.status, 200);
      const redirect = await browser.fetch('/oauth/authorize', {
        form: { ...hiddenFields(page.text), decision: 'approve' },
      });
      const tokens = await exchange(redirectParams(redirect.headers.get('location')).get('code')!);
      assert.equal(
        decodeJwt(tokens.body.id_token as string).payload.auth_time,
        Math.floor(world.server.clock.now() / 1000),
      );
    });

    it('max_age: a session older than it signs in again (none: login_required); max_age=0 does not loop', async () => {
      const browser = await signedInBrowser(world);
      world.server.clock.advance(120_000);
      assert.equal((await browser.fetch(query({ max_age: '600' }))).status, 200);
      const none = await browser.fetch(query({ max_age: '60', prompt: 'none' }));
      assert.equal(redirectParams(none.headers.get('location')).get('error'), 'login_required');
      const reauth = await browser.fetch(query({ max_age: '0' }));
      assert.equal(reauth.headers.get('location'), '/users/sign_in');
      world.server.clock.advance(1_000);
      const signedIn = await browser.signIn('alice', PASSWORD);
      const back = signedIn.headers.get('location')!;
      assert.equal(new URLSearchParams(back.split('?')[1]).get('max_age'), null);
      world.server.clock.advance(1_000);
      assert.equal((await browser.fetch(back)).status, 200);
    });

    it('malformed prompt / max_age / nonce: invalid_request to the client', async () => {
      const browser = await signedInBrowser(world);
      const cases: Array<Record<string, string>> = [
        { prompt: 'none login' },
        { prompt: 'bogus' },
        { max_age: '-1' },
        { max_age: '1.5' },
        { nonce: 'n'.repeat(513) },
      ];
      for (const extra of cases) {
        const reply = await browser.fetch(query(extra));
        assert.equal(reply.status, 302, JSON.stringify(extra));
        const params = redirectParams(reply.headers.get('location'));
        assert.equal(params.get('error'), 'invalid_request', JSON.stringify(extra));
        assert.equal(params.get('state'), 'st8');
      }
    });
  });
}
