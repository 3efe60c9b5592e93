/**
 * GraphiQL with the signed-in browser session: the page hands its fetcher the session's CSRF
 * token, and /api/graphql takes the session cookie only together with that token in
 * `X-CSRF-Token`, same-origin. The cookie alone, a wrong or foreign token, a cross-site fetch,
 * and REST never authenticate through the session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, type OAuthWorld, PASSWORD, csrfOf, startOAuthServer } from '../oauth/support.js';

const ME = '{ currentUser { username } }';

describe('GraphQL with the browser session and its CSRF token', () => {
  let world: OAuthWorld;
  let alice: Browser;
  let token: string;
  before(async () => {
    world = await startOAuthServer();
    alice = new Browser(world.server.url);
    await alice.signIn('alice', PASSWORD);
    const page = await alice.fetch('/graphiql');
    token = /data-csrf="([A-Za-z0-9_-]+)"/.exec(page.text)![1]!;
  });
  after(() => world.close());

  const graphql = (
    browser: Browser | null,
    headers: Record<string, string>,
    path = '/api/graphql',
  ) =>
    fetch(`${world.server.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(browser
          ? { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') }
          : {}),
        ...headers,
      },
      body: JSON.stringify({ query: ME }),
    });

  it('the signed-in page carries the token and username, is never stored; anonymous has none', async () => {
    const page = await alice.fetch('/graphiql');
    assert.equal(page.status, 200);
    assert.match(
      page.text,
      /<div id="graphiql" data-endpoint="\/api\/graphql" data-csrf="[A-Za-z0-9_-]+" data-username="alice">/,
    );
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(page.headers.get('vary'), 'cookie');
    const anonymous = await fetch(`${world.server.url}/graphiql`);
    const text = await anonymous.text();
    assert.doesNotMatch(text, /data-csrf/);
    assert.equal(anonymous.headers.get('cache-control'), 'no-cache');
  });

  it('cookie + token (same-origin) runs as the user, with read access', async () => {
    for (const headers of [
      { 'x-csrf-token': token } as Record<string, string>,
      { 'x-csrf-token': token, 'sec-fetch-site': 'same-origin' },
    ]) {
      const res = await graphql(alice, headers);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { data: { currentUser: { username: 'alice' } } });
    }
  });

  it('the cookie alone authenticates nothing', async () => {
    const res = await graphql(alice, {});
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { data: { currentUser: null } });
  });

  it('a wrong token, a token without the cookie, another session’s token, or a cross-site fetch: 401', async () => {
    const bob = new Browser(world.server.url);
    await bob.signIn('bob', PASSWORD);
    const bobToken = /data-csrf="([A-Za-z0-9_-]+)"/.exec((await bob.fetch('/graphiql')).text)![1]!;
    const formToken = csrfOf((await alice.fetch('/profile/applications')).text);
    const cases: Array<[string, Browser | null, Record<string, string>]> = [
      ['wrong token', alice, { 'x-csrf-token': 'x'.repeat(43) }],
      ['no cookie', null, { 'x-csrf-token': token }],
      ["bob's token, alice's cookie", alice, { 'x-csrf-token': bobToken }],
      ['the profile form token', alice, { 'x-csrf-token': formToken }],
      ['cross-site', alice, { 'x-csrf-token': token, 'sec-fetch-site': 'cross-site' }],
      ['same-site', alice, { 'x-csrf-token': token, 'sec-fetch-site': 'same-site' }],
    ];
    for (const [name, browser, headers] of cases) {
      const res = await graphql(browser, headers);
      assert.equal(res.status, 401, name);
      assert.equal(
        ((await res.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!
          .extensions.code,
        'UNAUTHENTICATED',
        name,
      );
    }
  });

  it('REST never takes the session', async () => {
    const res = await fetch(`${world.server.url}/api/v4/user`, {
      headers: {
        cookie: [...alice.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'x-csrf-token': token,
      },
    });
    assert.equal(res.status, 401);
  });

  it('a token in the request decides over the session', async () => {
    const pat = (
      await world.server.services.oauth.accounts.createToken(world.bob.id, {
        name: 't',
        scopes: ['read_api'],
        expiresAt: '',
      })
    ).token;
    const res = await graphql(alice, { 'x-csrf-token': token, authorization: `Bearer ${pat}` });
    assert.deepEqual(await res.json(), { data: { currentUser: { username: 'bob' } } });
  });

  it('after sign-out the token is dead', async () => {
    const carol = new Browser(world.server.url);
    await carol.signIn('alice', PASSWORD);
    const page = await carol.fetch('/graphiql');
    const own = /data-csrf="([A-Za-z0-9_-]+)"/.exec(page.text)![1]!;
    assert.equal((await graphql(carol, { 'x-csrf-token': own })).status, 200);
    const cookies = new Map(carol.cookies);
    const profile = await carol.fetch('/profile/applications');
    await carol.fetch('/users/sign_out', { form: { authenticity_token: csrfOf(profile.text) } });
    const stale = new Browser(world.server.url);
    for (const [k, v] of cookies) stale.cookies.set(k, v);
    assert.equal((await graphql(stale, { 'x-csrf-token': own })).status, 401);
  });
});
