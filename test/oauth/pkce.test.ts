import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { s256Challenge } from '../../src/domain/pkce.js';
import {
  Browser,
  type OAuthWorld,
  REDIRECT,
  basic,
  get,
  obtainCode,
  pkcePair,
  post,
  startOAuthServer,
  signedInBrowser,
} from './support.js';

const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE (RFC 7636)', () => {
  let world: OAuthWorld;
  let browser: Browser;
  before(async () => {
    world = await startOAuthServer();
    browser = await signedInBrowser(world);
  });
  after(() => world.close());

  const codeWith = async (query: Record<string, string>) =>
    (await obtainCode(world, query, browser)).searchParams.get('code')!;
  const exchange = (code: string, extra: Record<string, string> = {}) =>
    post(
      world.server,
      '/oauth/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...extra },
      { authorization: basic(world.app.uid, world.app.secret) },
    );
  const authorizeError = async (query: Record<string, string>) => {
    const reply = await browser.fetch(
      `/oauth/authorize?${new URLSearchParams({ client_id: world.app.uid, redirect_uri: REDIRECT, response_type: 'code', state: 'p', ...query })}`,
    );
    assert.equal(reply.status, 302);
    const location = new URL(reply.headers.get('location')!);
    assert.equal(location.searchParams.get('state'), 'p');
    assert.equal(location.searchParams.get('iss'), world.server.url);
    return location.searchParams;
  };

  it('the RFC 7636 Appendix B vector', async () => {
    assert.equal(s256Challenge(RFC_VERIFIER), RFC_CHALLENGE);
    const code = await codeWith({ code_challenge: RFC_CHALLENGE, code_challenge_method: 'S256' });
    const grant = await world.server.store.db
      .selectFrom('oauth_access_grants')
      .select(['code_challenge', 'code_challenge_method'])
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.deepEqual(grant, { code_challenge: RFC_CHALLENGE, code_challenge_method: 'S256' });
    assert.equal((await exchange(code, { code_verifier: RFC_VERIFIER })).status, 200);
  });

  it('plain works when asked for explicitly', async () => {
    const { verifier } = pkcePair();
    const code = await codeWith({ code_challenge: verifier, code_challenge_method: 'plain' });
    assert.equal((await exchange(code, { code_verifier: verifier })).status, 200);
  });

  it('a wrong verifier is invalid_grant; a missing one invalid_request', async () => {
    const { challenge } = pkcePair();
    const code = await codeWith({ code_challenge: challenge, code_challenge_method: 'S256' });
    assert.equal(
      (await exchange(code, { code_verifier: pkcePair().verifier })).body.error,
      'invalid_grant',
    );
    const missing = await exchange(code);
    assert.deepEqual(missing.body, {
      error: 'invalid_request',
      error_description: 'Missing required parameter: code_verifier.',
    });
  });

  it('a verifier for a code issued without a challenge is refused (downgrade)', async () => {
    const code = await codeWith({});
    assert.equal(
      (await exchange(code, { code_verifier: pkcePair().verifier })).body.error,
      'invalid_grant',
    );
  });

  it('verifiers of length 42 or 129 or outside the alphabet → invalid_request', async () => {
    const { challenge } = pkcePair();
    const code = await codeWith({ code_challenge: challenge, code_challenge_method: 'S256' });
    for (const bad of [
      'a'.repeat(42),
      'a'.repeat(129),
      `${'a'.repeat(42)}+`,
      `${'a'.repeat(42)}/`,
    ]) {
      const reply = await exchange(code, { code_verifier: bad });
      assert.equal(reply.status, 400, bad);
      assert.equal(reply.body.error, 'invalid_request', bad);
    }
    assert.equal(
      (await exchange(code, { code_verifier: 'a'.repeat(43) })).body.error,
      'invalid_grant',
    );
  });

  it('code_challenge_method sent to the token endpoint is ignored', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeWith({ code_challenge: challenge, code_challenge_method: 'S256' });
    const reply = await exchange(code, { code_verifier: verifier, code_challenge_method: 'plain' });
    assert.equal(reply.status, 200);
  });

  it('unsupported, lower-case or missing methods are refused at authorization (D3)', async () => {
    const { challenge } = pkcePair();
    for (const query of <Record<string, string>[]>[
      { code_challenge: challenge, code_challenge_method: 'bogus' },
      { code_challenge: challenge, code_challenge_method: 's256' },
      { code_challenge: challenge },
    ]) {
      const params = await authorizeError(query);
      assert.equal(params.get('error'), 'invalid_request');
      assert.equal(
        params.get('error_description'),
        'The code_challenge_method must be one of plain, S256.',
      );
    }
    const short = await authorizeError({ code_challenge: 'short', code_challenge_method: 'S256' });
    assert.equal(short.get('error'), 'invalid_request');
  });

  it('public clients must use PKCE (D4)', async () => {
    const reply = await browser.fetch(
      `/oauth/authorize?${new URLSearchParams({ client_id: world.publicApp.uid, redirect_uri: 'http://127.0.0.1/callback', response_type: 'code', state: 'q' })}`,
    );
    const location = new URL(reply.headers.get('location')!);
    assert.equal(location.searchParams.get('error'), 'invalid_request');
    assert.match(location.searchParams.get('error_description')!, /PKCE/);
  });

  it('a public client exchanges with client_id and verifier only', async () => {
    const { verifier, challenge } = pkcePair();
    const redirect = 'http://127.0.0.1:4567/callback';
    const location = await obtainCode(
      world,
      {
        client_id: world.publicApp.uid,
        redirect_uri: redirect,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
      browser,
    );
    const reply = await post(world.server, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: world.publicApp.uid,
      code: location.searchParams.get('code')!,
      redirect_uri: redirect,
      code_verifier: verifier,
    });
    assert.equal(reply.status, 200, reply.text);
    assert.ok(reply.body.refresh_token);
  });

  it('metadata advertises S256', async () => {
    const meta = await get(world.server, '/.well-known/oauth-authorization-server');
    assert.ok((meta.body.code_challenge_methods_supported as string[]).includes('S256'));
  });
});
