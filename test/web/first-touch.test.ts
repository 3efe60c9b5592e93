/**
 * Issue 14 "First touch", the web part over HTTP: HTML 404s for browsers and JSON for API
 * clients, canonical page paths, the sign-in page naming the application, and the profile forms'
 * confirmations, messages and kept values.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import {
  Browser,
  type OAuthWorld,
  PASSWORD,
  REDIRECT,
  csrfOf,
  startOAuthServer,
} from '../oauth/support.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

for (const dialect of DIALECTS) {
  describe(`not found and canonical paths (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect });
    });
    after(() => world.close());

    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${world.server.url}${path}`, { headers, redirect: 'manual' });

    it('a browser gets an HTML 404 page for an unknown path', async () => {
      const res = await get('/no/such/page', { accept: BROWSER_ACCEPT });
      assert.equal(res.status, 404);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const text = await res.text();
      assert.match(text, /<title>Page not found · pulsegate<\/title>/);
      assert.match(text, /<a href="\/">the home page<\/a>/);
    });

    it('API clients keep JSON: any Accept off /api, and always under /api', async () => {
      for (const accept of [undefined, '*/*', 'application/json']) {
        const res = await get('/no/such/page', accept ? { accept } : {});
        assert.equal(res.status, 404, String(accept));
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(await res.text(), '{"message":"404 Not Found"}');
      }
      const api = await get('/api/v5/nothing', { accept: BROWSER_ACCEPT });
      assert.equal(api.status, 404);
      assert.equal(await api.text(), '{"error":"404 Not Found"}');
    });

    it('page paths with trailing slashes redirect (308) to the canonical path, query kept', async () => {
      const cases: Array<[string, string]> = [
        ['/profile/applications/', '/profile/applications'],
        ['/users/sign_in//', '/users/sign_in'],
        ['/graphiql/?query=%7Bx%7D', '/graphiql?query=%7Bx%7D'],
      ];
      for (const [path, location] of cases) {
        const res = await get(path, { accept: BROWSER_ACCEPT });
        assert.equal(res.status, 308, path);
        assert.equal(res.headers.get('location'), location, path);
      }
    });

    it('API paths with a trailing slash answer 404 JSON as GitLab does; no open redirects', async () => {
      const api = await get('/api/v4/events/', { accept: BROWSER_ACCEPT });
      assert.equal(api.status, 404);
      assert.equal(await api.text(), '{"error":"404 Not Found"}');
      for (const path of ['//evil.example/', '/nothing/here/', '/%5Cevil.example/']) {
        const res = await get(path, { accept: BROWSER_ACCEPT });
        assert.equal(res.status, 404, path);
        assert.equal(res.headers.get('location'), null, path);
      }
      const post = await fetch(`${world.server.url}/profile/applications/`, {
        method: 'POST',
        redirect: 'manual',
      });
      assert.equal(post.status, 404);
    });
  });

  describe(`sign-in page (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect });
    });
    after(() => world.close());

    it('names the application when the sign-in comes from /oauth/authorize', async () => {
      const browser = new Browser(world.server.url);
      const query = new URLSearchParams({
        client_id: world.app.uid,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'api',
        state: 's',
      });
      const authorize = await browser.fetch(`/oauth/authorize?${query}`);
      assert.equal(authorize.headers.get('location'), '/users/sign_in');
      const page = await browser.fetch('/users/sign_in');
      assert.equal(page.status, 200);
      assert.match(page.text, /Sign in to continue to <strong>Example App<\/strong>\./);
      // A failed password keeps saying so; the return path survives until sign-in succeeds.
      const wrong = await browser.fetch('/users/sign_in', {
        form: { authenticity_token: csrfOf(page.text), login: 'alice', password: 'nope' },
      });
      assert.equal(wrong.status, 401);
      assert.match(wrong.text, /Sign in to continue to <strong>Example App<\/strong>\./);
      const ok = await browser.fetch('/users/sign_in', {
        form: { authenticity_token: csrfOf(page.text), login: 'alice', password: PASSWORD },
      });
      assert.equal(ok.status, 303);
      assert.equal(ok.headers.get('location'), `/oauth/authorize?${query}`);
    });

    it('a plain sign-in names no application; the button is a primary one', async () => {
      const browser = new Browser(world.server.url);
      await browser.fetch('/profile/applications');
      const page = await browser.fetch('/users/sign_in');
      assert.doesNotMatch(page.text, /continue to/);
      assert.match(page.text, /<button type="submit" class="primary">Sign in<\/button>/);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`profile forms: confirmations, messages, kept values (${dialect})`, () => {
    let world: OAuthWorld;
    let browser: Browser;
    before(async () => {
      world = await startOAuthServer({ dialect });
      browser = new Browser(world.server.url);
      await browser.signIn('alice', PASSWORD);
    });
    after(() => world.close());

    const TOKENS = '/profile/personal_access_tokens';
    const csrf = async (path: string) => csrfOf((await browser.fetch(path)).text);
    const userWith = (pat: string) =>
      fetch(`${world.server.url}/api/v4/user`, { headers: { 'private-token': pat } });

    it('a token form error is in plain words and keeps what was typed', async () => {
      const token = await csrf(TOKENS);
      const none = await browser.fetch(TOKENS, {
        form: { authenticity_token: token, name: 'my <laptop>', expires_at: '2027-03-04' },
      });
      assert.equal(none.status, 422);
      assert.match(none.text, /<li>Choose at least one scope\.<\/li>/);
      assert.match(none.text, /<input name="name" value="my &lt;laptop&gt;" required \/>/);
      assert.match(none.text, /<input type="date" name="expires_at" value="2027-03-04"\s*\/>/);
      const past = await browser.fetch(TOKENS, {
        form: {
          authenticity_token: token,
          name: 'old',
          scopes: 'read_api',
          expires_at: '2020-01-01',
        },
      });
      assert.equal(past.status, 422);
      assert.match(past.text, /<li>Choose an expiration date after today\.<\/li>/);
      assert.match(past.text, /value="read_api"\s+checked/);
      assert.doesNotMatch(past.text, /value="api"\s+checked/);
    });

    it('the token form describes each scope and labels the date as the picker shows it', async () => {
      const page = await browser.fetch(TOKENS);
      assert.match(
        page.text,
        /<code>read_api<\/code>\s*<span class="muted scope-description">Read access to the API/,
      );
      assert.doesNotMatch(page.text, /YYYY-MM-DD/);
    });

    it('the new token has a copy button; the list shows when each token was last used', async () => {
      const created = await browser.fetch(TOKENS, {
        form: { authenticity_token: await csrf(TOKENS), name: 'cli', scopes: 'read_user' },
      });
      assert.equal(created.status, 201);
      assert.match(
        created.text,
        /<code id="created-token">glpat-[^<]+<\/code>\s*<button type="button" class="copy secondary" data-copy="created-token" hidden>/,
      );
      assert.match(created.headers.get('content-security-policy')!, /script-src 'self'/);
      assert.match(created.text, /<script src="\/assets\/copy.js" defer><\/script>/);
      const pat = /id="created-token">([^<]+)</.exec(created.text)![1]!;
      const row = (text: string) => /<td data-label="Name">cli<\/td>[\s\S]*?<\/tr>/.exec(text)![0];
      assert.match(
        row((await browser.fetch(TOKENS)).text),
        /<td data-label="Last used">\s*Never\s*<\/td>/,
      );
      assert.equal((await userWith(pat)).status, 200);
      const today = new Date(world.server.clock.now()).toISOString().slice(0, 10);
      assert.match(
        row((await browser.fetch(TOKENS)).text),
        new RegExp(`<td data-label="Last used">\\s*${today}\\s*</td>`),
      );
      const script = await fetch(`${world.server.url}/assets/copy.js`);
      assert.equal(script.status, 200);
      assert.match(script.headers.get('content-type')!, /^(text|application)\/javascript/);
    });

    it('revoking asks first (a page, no JavaScript needed), then says it was done', async () => {
      const created = await browser.fetch(TOKENS, {
        form: { authenticity_token: await csrf(TOKENS), name: 'ci <bot>', scopes: 'api' },
      });
      const pat = /id="created-token">([^<]+)</.exec(created.text)![1]!;
      const list = await browser.fetch(TOKENS);
      const id =
        /href="\/profile\/personal_access_tokens\/(\d+)\/revoke"\s+aria-label="Revoke ci &lt;bot&gt;"/.exec(
          list.text,
        )![1]!;
      assert.doesNotMatch(
        list.text,
        /<form\s+method="post"\s+action="\/profile\/personal_access_tokens\/\d+\/revoke"/,
      );
      const confirm = await browser.fetch(`${TOKENS}/${id}/revoke`);
      assert.equal(confirm.status, 200);
      assert.equal(confirm.headers.get('cache-control'), 'no-store');
      assert.match(confirm.text, /Revoke the token <strong>ci &lt;bot&gt;<\/strong>\?/);
      assert.match(
        confirm.text,
        new RegExp(`<form method="post" action="${TOKENS}/${id}/revoke">`),
      );
      assert.match(
        confirm.text,
        /<a class="button secondary" href="\/profile\/personal_access_tokens">Cancel<\/a>/,
      );
      assert.equal((await userWith(pat)).status, 200, 'asking revokes nothing');
      const done = await browser.fetch(`${TOKENS}/${id}/revoke`, {
        form: { authenticity_token: csrfOf(confirm.text) },
      });
      assert.equal(done.status, 303);
      assert.equal(done.headers.get('location'), `${TOKENS}?done=revoked`);
      assert.equal((await userWith(pat)).status, 401);
      const after = await browser.fetch(`${TOKENS}?done=revoked`);
      assert.match(
        after.text,
        /role="status">\s*<ul>\s*<li>The token was revoked\. It no longer works\.<\/li>/,
      );
      assert.equal((await browser.fetch(`${TOKENS}/${id}/revoke`)).status, 404, 'already revoked');
      const bob = new Browser(world.server.url);
      await bob.signIn('bob', PASSWORD);
      assert.equal((await bob.fetch(`${TOKENS}/${id}/revoke`)).status, 404, "another user's token");
    });

    it('deleting an application and renewing its secret ask first; deleting then says so', async () => {
      const APPS = '/profile/applications';
      const list = await browser.fetch(APPS);
      assert.match(
        list.text,
        new RegExp(`<a class="button danger" href="${APPS}/${world.other.id}/delete">Delete</a>`),
      );
      assert.match(
        list.text,
        /<code>read_user<\/code>\s*<span class="muted scope-description">Read-only access to your profile/,
      );
      const renew = await browser.fetch(`${APPS}/${world.other.id}/renew_secret`);
      assert.equal(renew.status, 200);
      assert.match(renew.text, /Renew the secret of <strong>Other App<\/strong>\?/);
      assert.match(
        renew.text,
        new RegExp(`<form method="post" action="${APPS}/${world.other.id}/renew_secret">`),
      );
      const renewed = await browser.fetch(`${APPS}/${world.other.id}/renew_secret`, {
        form: { authenticity_token: csrfOf(renew.text) },
      });
      assert.equal(renewed.status, 200);
      assert.match(
        renewed.text,
        /<code id="application-secret">[^<]+<\/code>\s*<button type="button" class="copy secondary" data-copy="application-secret" hidden>/,
      );
      const confirm = await browser.fetch(`${APPS}/${world.other.id}/delete`);
      assert.equal(confirm.status, 200);
      assert.match(confirm.text, /Delete the application <strong>Other App<\/strong>\?/);
      assert.ok(
        await world.server.services.oauth.applications.byId(world.other.id),
        'asking deletes nothing',
      );
      const deleted = await browser.fetch(`${APPS}/${world.other.id}/delete`, {
        form: { authenticity_token: csrfOf(confirm.text) },
      });
      assert.equal(deleted.status, 303);
      assert.equal(deleted.headers.get('location'), `${APPS}?done=deleted`);
      const after = await browser.fetch(`${APPS}?done=deleted`);
      assert.match(after.text, /<li>The application was deleted and its tokens revoked\.<\/li>/);
      assert.equal((await browser.fetch(`${APPS}/${world.other.id}/delete`)).status, 404);
      const bob = new Browser(world.server.url);
      await bob.signIn('bob', PASSWORD);
      assert.equal((await bob.fetch(`${APPS}/${world.app.id}/renew_secret`)).status, 404);
      assert.equal((await bob.fetch(`${APPS}/${world.app.id}/delete`)).status, 404);
    });

    it('an application form error is in plain words and keeps what was typed', async () => {
      const reply = await browser.fetch('/profile/applications', {
        form: {
          authenticity_token: await csrf('/profile/applications'),
          name: 'Kept <name>',
          redirect_uri: 'https://kept.example/cb',
        },
      });
      assert.equal(reply.status, 422);
      assert.match(reply.text, /<li>Choose at least one scope\.<\/li>/);
      assert.match(reply.text, /value="Kept &lt;name&gt;"/);
      assert.match(reply.text, />https:\/\/kept.example\/cb<\/textarea>/);
      const empty = await browser.fetch('/profile/applications', {
        form: { authenticity_token: await csrf('/profile/applications'), name: ' ', scopes: 'api' },
      });
      assert.match(empty.text, /<li>Give the application a name \(up to 255 characters\)\.<\/li>/);
      assert.match(empty.text, /<li>Enter at least one redirect URI\.<\/li>/);
    });
  });
}
