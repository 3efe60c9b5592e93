import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import {
  Browser,
  type OAuthWorld,
  PASSWORD,
  REDIRECT,
  hiddenFields,
  obtainCode,
  startOAuthServer,
  signedInBrowser,
} from './support.js';

for (const dialect of DIALECTS) {
  describe(`GET/POST /oauth/authorize (${dialect})`, () => {
    let world: OAuthWorld;
    let browser: Browser;
    before(async () => {
      world = await startOAuthServer({ dialect });
      browser = await signedInBrowser(world);
    });
    after(() => world.close());

    const authorize = (query: Record<string, string>, agent = browser) =>
      agent.fetch(`/oauth/authorize?${new URLSearchParams(query)}`);
    const base = () => ({ client_id: world.app.uid, response_type: 'code', state: 's1' });

    it('B.1: a redirect URI that is not registered byte for byte gets a 400 page, never a redirect', async () => {
      const bad = [
        'https://app.example/cb/',
        'https://app.example/CB',
        'https://app.example/cb?x=1',
        'https://app.example/cb/../evil',
        'https://app.example/cb%2F..',
        'https://app.example.evil/cb',
        'https://app.example@evil/cb',
        'https://sub.app.example/cb',
        'http://app.example/cb',
        'https://app.example/cb#frag',
        'https://app.example:443/cb',
      ];
      for (const redirect_uri of bad) {
        const reply = await authorize({ ...base(), redirect_uri });
        assert.equal(reply.status, 400, redirect_uri);
        assert.equal(reply.headers.get('location'), null, redirect_uri);
        assert.match(reply.text, /The redirect URI included is not valid\./);
        assert.equal(reply.headers.get('x-frame-options'), 'DENY');
      }
    });

    it('B.1: unknown or missing client_id and missing redirect_uri → 400 page', async () => {
      const unknown = await authorize({ ...base(), client_id: 'nope', redirect_uri: REDIRECT });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.headers.get('location'), null);
      const missing = await authorize({ response_type: 'code', redirect_uri: REDIRECT });
      assert.equal(missing.status, 400);
      assert.match(missing.text, /Missing required parameter: client_id\./);
      const noRedirect = await authorize(base());
      assert.equal(noRedirect.status, 400);
      assert.match(noRedirect.text, /Missing required parameter: redirect_uri\./);
    });

    it('B.20: a doubled client_id or redirect_uri → 400 page; a doubled scope → redirect invalid_request', async () => {
      const q = new URLSearchParams({ ...base(), redirect_uri: REDIRECT });
      q.append('client_id', world.other.uid);
      assert.equal((await browser.fetch(`/oauth/authorize?${q}`)).status, 400);
      const r = new URLSearchParams({ ...base(), redirect_uri: REDIRECT });
      r.append('redirect_uri', REDIRECT);
      assert.equal((await browser.fetch(`/oauth/authorize?${r}`)).status, 400);
      const s = new URLSearchParams({ ...base(), redirect_uri: REDIRECT, scope: 'api' });
      s.append('scope', 'read_user');
      const doubled = await browser.fetch(`/oauth/authorize?${s}`);
      assert.equal(doubled.status, 302);
      const location = new URL(doubled.headers.get('location')!);
      assert.equal(location.searchParams.get('error'), 'invalid_request');
      assert.equal(location.searchParams.get('state'), 's1');
    });

    it('B.1/D6: invalid scope with a valid redirect URI → redirect with error, state and iss', async () => {
      const reply = await authorize({ ...base(), redirect_uri: REDIRECT, scope: 'sudo' });
      assert.equal(reply.status, 302);
      const location = new URL(reply.headers.get('location')!);
      assert.equal(location.origin + location.pathname, REDIRECT);
      assert.equal(location.searchParams.get('error'), 'invalid_scope');
      assert.equal(location.searchParams.get('state'), 's1');
      assert.equal(location.searchParams.get('iss'), world.server.url);
      assert.equal(location.searchParams.get('code'), null);
    });

    it('B.6: response_type=token → unsupported_response_type, no token anywhere', async () => {
      const reply = await authorize({ ...base(), redirect_uri: REDIRECT, response_type: 'token' });
      assert.equal(reply.status, 302);
      const raw = reply.headers.get('location')!;
      const location = new URL(raw);
      assert.equal(location.searchParams.get('error'), 'unsupported_response_type');
      assert.equal(location.searchParams.get('iss'), world.server.url);
      assert.doesNotMatch(raw, /access_token|#/);
    });

    it('a missing response_type → invalid_request redirect', async () => {
      const reply = await authorize({ client_id: world.app.uid, redirect_uri: REDIRECT });
      const location = new URL(reply.headers.get('location')!);
      assert.equal(location.searchParams.get('error'), 'invalid_request');
      assert.equal(
        location.searchParams.get('error_description'),
        'Missing required parameter: response_type.',
      );
    });

    it('shows a consent page naming the app and scopes, uncached and unframeable', async () => {
      const reply = await authorize({ ...base(), redirect_uri: REDIRECT, scope: 'read_user' });
      assert.equal(reply.status, 200);
      assert.match(reply.text, /Authorize <strong>Example App<\/strong>/);
      assert.match(reply.text, /<code>read_user<\/code>/);
      assert.doesNotMatch(reply.text, /<code>api<\/code>/);
      assert.equal(reply.headers.get('cache-control'), 'no-store');
      assert.equal(reply.headers.get('x-frame-options'), 'DENY');
      assert.equal(reply.headers.get('referrer-policy'), 'no-referrer');
      const csp = reply.headers.get('content-security-policy')!;
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /https?:/, 'no third-party sources');
      assert.doesNotMatch(reply.text, /(src|href)="https?:/, 'no third-party resources');
      assert.equal(reply.headers.get('access-control-allow-origin'), null);
    });

    it('B.18: approval → 302 with code, state and iss; the code has ≥ 256 bits', async () => {
      const location = await obtainCode(world, {}, browser);
      assert.equal(location.origin + location.pathname, REDIRECT);
      assert.match(location.searchParams.get('code')!, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(location.searchParams.get('state'), 'xyz');
      assert.equal(location.searchParams.get('iss'), world.server.url);
      assert.deepEqual([...location.searchParams.keys()].sort(), ['code', 'iss', 'state']);
    });

    it('B.18: deny → access_denied with state and iss', async () => {
      const reply = await browser.consent({ ...base(), redirect_uri: REDIRECT }, 'deny');
      assert.equal(reply.status, 302);
      const location = new URL(reply.headers.get('location')!);
      assert.equal(location.searchParams.get('error'), 'access_denied');
      assert.equal(location.searchParams.get('state'), 's1');
      assert.equal(location.searchParams.get('iss'), world.server.url);
    });

    it('not signed in → sign-in, then back to the same authorization request', async () => {
      const agent = new Browser(world.server.url);
      const query = { ...base(), redirect_uri: REDIRECT };
      const first = await authorize(query, agent);
      assert.equal(first.status, 302);
      assert.equal(first.headers.get('location'), '/users/sign_in');
      const signedIn = await agent.signIn('alice', PASSWORD);
      assert.equal(signedIn.status, 303);
      assert.equal(
        signedIn.headers.get('location'),
        `/oauth/authorize?${new URLSearchParams(query)}`,
      );
      const consent = await agent.fetch(signedIn.headers.get('location')!);
      assert.equal(consent.status, 200);
      assert.match(consent.text, /Example App/);
    });

    it('the consent token is bound to the request: a changed scope or state is refused', async () => {
      const page = await authorize({ ...base(), redirect_uri: REDIRECT, scope: 'read_user' });
      const fields = hiddenFields(page.text);
      for (const change of <Record<string, string>[]>[
        { scope: 'api' },
        { state: 'other' },
        { redirect_uri: REDIRECT, client_id: world.other.uid },
      ]) {
        const reply = await browser.fetch('/oauth/authorize', {
          form: { ...fields, ...change, decision: 'approve' },
        });
        assert.equal(reply.status, 403, JSON.stringify(change));
        assert.equal(reply.headers.get('location'), null);
      }
      const otherSession = new Browser(world.server.url);
      await otherSession.signIn('alice', PASSWORD);
      const replayed = await otherSession.fetch('/oauth/authorize', {
        form: { ...fields, decision: 'approve' },
      });
      assert.equal(replayed.status, 403, 'token bound to the session');
    });

    it('cross-site Origin or Sec-Fetch-Site on the consent POST is refused', async () => {
      const page = await authorize({ ...base(), redirect_uri: REDIRECT });
      const fields = { ...hiddenFields(page.text), decision: 'approve' };
      const evil = await browser.fetch('/oauth/authorize', {
        form: fields,
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(evil.status, 403);
      const site = await browser.fetch('/oauth/authorize', {
        form: fields,
        headers: { 'sec-fetch-site': 'cross-site' },
      });
      assert.equal(site.status, 403);
      const ok = await browser.fetch('/oauth/authorize', {
        form: fields,
        headers: { 'sec-fetch-site': 'same-origin' },
      });
      assert.equal(ok.status, 302);
    });

    it('B.11: sign-in answers 303 and consent 302, never 307/308', async () => {
      const agent = new Browser(world.server.url);
      assert.equal((await agent.signIn('alice', PASSWORD)).status, 303);
      const reply = await agent.consent({ ...base(), redirect_uri: REDIRECT, state: 'xyz' });
      assert.equal(reply.status, 302);
      const location = reply.headers.get('location')!;
      const code = new URL(location).searchParams.get('code')!;
      assert.match(code, /^[A-Za-z0-9_-]{43}$/);
      const iss = encodeURIComponent(world.server.url);
      assert.equal(location, `${REDIRECT}?code=${code}&state=xyz&iss=${iss}`);
    });

    it('B.20: a state with markup is URL-encoded in Location and escaped in HTML', async () => {
      const state = '<script>alert(1)</script>"';
      const page = await authorize({ ...base(), redirect_uri: REDIRECT, state });
      assert.doesNotMatch(page.text, /<script>alert/);
      assert.match(page.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;/);
      const reply = await browser.fetch('/oauth/authorize', {
        form: { ...hiddenFields(page.text), decision: 'approve' },
      });
      const raw = reply.headers.get('location')!;
      assert.doesNotMatch(raw, /[<>"]/);
      assert.equal(new URL(raw).searchParams.get('state'), state);
    });

    it('B.20: an empty scope= counts as absent (the application scopes are asked for)', async () => {
      const page = await authorize({ ...base(), redirect_uri: REDIRECT, scope: '' });
      assert.equal(page.status, 200);
      assert.equal(hiddenFields(page.text).scope, 'api read_user');
    });

    it('B.21: no CORS on /oauth/authorize', async () => {
      const get = await authorize({ ...base(), redirect_uri: REDIRECT }, browser);
      assert.equal(get.headers.get('access-control-allow-origin'), null);
      const res = await fetch(`${world.server.url}/oauth/authorize`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(res.headers.get('access-control-allow-origin'), null);
    });

    it('D7: a loopback IP redirect URI matches on any port; localhost and https do not', async () => {
      const apps = world.server.services.oauth.applications;
      const { app } = await apps.create(world.alice.id, {
        name: 'Loopbacks',
        redirectUris:
          'http://127.0.0.1/cb\nhttp://localhost:8000/cb\nhttps://secure.example:8443/cb',
        scopes: ['api'],
        confidential: true,
      });
      const attempt = (redirect_uri: string) =>
        authorize({ client_id: app.uid, response_type: 'code', redirect_uri });
      assert.equal((await attempt('http://127.0.0.1:54321/cb')).status, 200);
      assert.equal((await attempt('http://127.0.0.1/cb')).status, 200);
      assert.equal((await attempt('http://127.0.0.1:54321/cb/x')).status, 400);
      assert.equal((await attempt('http://localhost:9000/cb')).status, 400);
      assert.equal((await attempt('http://localhost:8000/cb')).status, 200);
      assert.equal((await attempt('https://secure.example:9443/cb')).status, 400);
    });
  });
}
