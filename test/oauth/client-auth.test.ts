import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAUTH_DESCRIPTIONS } from '../../src/domain/oauth.js';
import { THROTTLE_POLICIES } from '../../src/services/accounts/throttle.js';
import { type OAuthWorld, REDIRECT, basic, obtainCode, post, startOAuthServer } from './support.js';

const invalidClient = {
  error: 'invalid_client',
  error_description: OAUTH_DESCRIPTIONS.invalid_client,
};

describe('client authentication at /oauth/token (B.5, D8, D10)', () => {
  let world: OAuthWorld;
  before(async () => {
    world = await startOAuthServer();
  });
  after(() => world.close());

  const code = async () => (await obtainCode(world)).searchParams.get('code')!;
  const exchange = async (extra: Record<string, string>, headers: Record<string, string> = {}) =>
    post(
      world.server,
      '/oauth/token',
      { grant_type: 'authorization_code', code: await code(), redirect_uri: REDIRECT, ...extra },
      headers,
    );

  it('accepts form-urlencoded Basic, raw Basic and body credentials', async () => {
    assert.equal(
      (await exchange({}, { authorization: basic(world.app.uid, world.app.secret, true) })).status,
      200,
    );
    assert.equal(
      (await exchange({}, { authorization: basic(world.app.uid, world.app.secret, false) })).status,
      200,
    );
    assert.equal(
      (await exchange({ client_id: world.app.uid, client_secret: world.app.secret })).status,
      200,
    );
    const sameId = await exchange(
      { client_id: world.app.uid },
      { authorization: basic(world.app.uid, world.app.secret) },
    );
    assert.equal(sameId.status, 200, 'a matching client_id beside Basic is fine');
  });

  it('Basic and body secret together → invalid_request', async () => {
    const reply = await exchange(
      { client_id: world.app.uid, client_secret: world.app.secret },
      { authorization: basic(world.app.uid, world.app.secret) },
    );
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error, 'invalid_request');
  });

  it('a wrong secret via Basic → 401 with WWW-Authenticate: Basic; via the body → 401 without', async () => {
    const viaBasic = await exchange({}, { authorization: basic(world.app.uid, 'wrong') });
    assert.equal(viaBasic.status, 401);
    assert.deepEqual(viaBasic.body, invalidClient);
    assert.equal(
      viaBasic.headers.get('www-authenticate'),
      'Basic realm="pulsegate", charset="UTF-8"',
    );
    assert.equal(viaBasic.headers.get('cache-control'), 'no-store');
    const viaBody = await exchange({ client_id: world.app.uid, client_secret: 'wrong' });
    assert.equal(viaBody.status, 401);
    assert.deepEqual(viaBody.body, invalidClient);
    assert.equal(viaBody.headers.get('www-authenticate'), null);
  });

  it('unknown client and wrong secret → the same RFC 6749 invalid_client 401, in the body and via Basic', async () => {
    // Everything but the per-response headers (date, request id, connection).
    const answer = (reply: Awaited<ReturnType<typeof exchange>>) => ({
      status: reply.status,
      text: reply.text,
      headers: Object.fromEntries(
        [...reply.headers].filter(
          ([name]) => !['date', 'x-request-id', 'connection', 'keep-alive'].includes(name),
        ),
      ),
    });
    const text = JSON.stringify(invalidClient);
    const expected = {
      status: 401,
      text,
      headers: {
        'access-control-allow-origin': '*',
        'cache-control': 'no-store',
        'content-length': String(Buffer.byteLength(text)),
        'content-type': 'application/json',
        pragma: 'no-cache',
      },
    };
    const inBody = {
      unknown: answer(await exchange({ client_id: 'unknown', client_secret: 'x' })),
      wrong: answer(await exchange({ client_id: world.app.uid, client_secret: 'x' })),
    };
    assert.deepEqual(inBody, { unknown: expected, wrong: expected });
    const challenged = {
      ...expected,
      headers: {
        ...expected.headers,
        'www-authenticate': 'Basic realm="pulsegate", charset="UTF-8"',
      },
    };
    const viaBasic = {
      unknown: answer(await exchange({}, { authorization: basic('unknown', 'x') })),
      wrong: answer(await exchange({}, { authorization: basic(world.app.uid, 'x') })),
    };
    assert.deepEqual(viaBasic, { unknown: challenged, wrong: challenged });
  });

  it('a confidential client without authentication, or with its secret only in the query → invalid_client', async () => {
    assert.deepEqual((await exchange({ client_id: world.app.uid })).body, invalidClient);
    const c = await code();
    const res = await fetch(`${world.server.url}/oauth/token?client_secret=${world.app.secret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: c,
        redirect_uri: REDIRECT,
        client_id: world.app.uid,
      }),
    });
    assert.equal(res.status, 401);
  });

  it('B.6: the query string is never read; GET is 405', async () => {
    const res = await fetch(
      `${world.server.url}/oauth/token?grant_type=password&username=alice&password=x`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      },
    );
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      error: 'invalid_request',
      error_description: 'Missing required parameter: grant_type.',
    });
    const getReply = await fetch(`${world.server.url}/oauth/token`);
    assert.equal(getReply.status, 405);
    assert.equal(getReply.headers.get('cache-control'), 'no-store');
  });

  it('B.20: doubled parameters → invalid_request', async () => {
    for (const name of ['grant_type', 'code', 'redirect_uri', 'client_id']) {
      const body = new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'c',
        redirect_uri: REDIRECT,
        client_id: world.app.uid,
      });
      body.append(name, body.get(name)!);
      const reply = await post(world.server, '/oauth/token', body);
      assert.equal(reply.status, 400, name);
      assert.equal(reply.body.error, 'invalid_request', name);
    }
  });

  it('unknown grant types → unsupported_grant_type', async () => {
    for (const grant_type of ['implicit', 'client_credentials', 'urn:x']) {
      const reply = await post(world.server, '/oauth/token', { grant_type });
      assert.deepEqual(reply.body, {
        error: 'unsupported_grant_type',
        error_description: OAUTH_DESCRIPTIONS.unsupported_grant_type,
      });
    }
  });

  it('B.12: repeated invalid_client from one address is throttled', async () => {
    let last = 0;
    for (let i = 0; i <= THROTTLE_POLICIES.client.limit; i++) {
      last = (
        await post(world.server, '/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: 'nobody',
          client_secret: 'x',
        })
      ).status;
    }
    assert.equal(last, 429);
    world.server.clock.advance(THROTTLE_POLICIES.client.windowMs);
  });
});
