import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { randomSecret, secretsEqual } from '../../src/domain/secrets.js';
import {
  Browser,
  type OAuthWorld,
  PASSWORD,
  REDIRECT,
  basic,
  obtainCode,
  post,
  startOAuthServer,
  signedInBrowser,
} from './support.js';

describe('B.14 constant-time comparison', () => {
  it('secretsEqual: equal, unequal, and different lengths without throwing', () => {
    assert.equal(secretsEqual('abc', 'abc'), true);
    assert.equal(secretsEqual('abc', 'abd'), false);
    assert.equal(secretsEqual('abc', 'abcd'), false);
    assert.equal(secretsEqual('', 'x'.repeat(1000)), false);
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => secretsEqual(a, b) === (a === b)));
  });
});

describe('B.16 token entropy', () => {
  it('10k minted tokens: no collisions, 256 bits, base64url alphabet', async () => {
    const world = await startOAuthServer();
    try {
      const seen = new Set<string>();
      for (let i = 0; i < 10_000; i++) {
        const minted = world.server.services.oauth.tokens.mint({
          applicationId: 1,
          userId: 1,
          scopes: ['api'],
          withRefresh: true,
          grantId: null,
        });
        for (const t of [minted.accessToken, minted.refreshToken!]) {
          assert.match(t, /^pgo[ar]-[A-Za-z0-9_-]{43}$/);
          assert.ok(!seen.has(t));
          seen.add(t);
        }
      }
      const secrets = new Set(Array.from({ length: 10_000 }, () => randomSecret(32)));
      assert.equal(secrets.size, 10_000);
    } finally {
      await world.close();
    }
  });
});

describe('B.15 only digests are stored', () => {
  let world: OAuthWorld;
  before(async () => {
    world = await startOAuthServer();
  });
  after(() => world.close());

  it('after every flow, no plaintext token, code, secret or session id is in the database files', async () => {
    const plaintexts: string[] = [world.app.secret, world.other.secret, world.publicApp.secret];
    const browser = await signedInBrowser(world);
    plaintexts.push(browser.cookies.get('_pulsegate_session')!);
    const location = await obtainCode(world, {}, browser);
    const code = location.searchParams.get('code')!;
    plaintexts.push(code);
    const tokens = await post(
      world.server,
      '/oauth/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      { authorization: basic(world.app.uid, world.app.secret) },
    );
    plaintexts.push(tokens.body.access_token as string, tokens.body.refresh_token as string);
    const refreshed = await post(
      world.server,
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string },
      { authorization: basic(world.app.uid, world.app.secret) },
    );
    plaintexts.push(refreshed.body.access_token as string, refreshed.body.refresh_token as string);
    const password = await post(world.server, '/oauth/token', {
      grant_type: 'password',
      username: 'bob',
      password: PASSWORD,
    });
    plaintexts.push(password.body.access_token as string);
    const pat = await world.server.services.oauth.accounts.createToken(world.alice.id, {
      name: 'x',
      scopes: ['api'],
      expiresAt: '',
    });
    plaintexts.push(pat.token);
    const renewed = await world.server.services.oauth.applications.renewSecret(
      world.alice.id,
      world.app.id,
    );
    plaintexts.push(renewed!);
    plaintexts.push(PASSWORD);
    assert.equal(plaintexts.filter((p) => typeof p !== 'string' || p.length < 20).length, 0);

    const path = world.server.config.databaseUrl.slice('sqlite:'.length);
    const files = [path, `${path}-wal`].filter(existsSync).map((f) => readFileSync(f));
    assert.ok(files.length > 0);
    for (const secret of plaintexts) {
      for (const bytes of files) {
        assert.equal(
          bytes.includes(Buffer.from(secret)),
          false,
          `plaintext found: ${secret.slice(0, 8)}…`,
        );
      }
    }
    // The digests are there, so the search itself can find things.
    const { digest } = await import('../../src/domain/secrets.js');
    assert.ok(
      files.some((b) => b.includes(Buffer.from(digest(tokens.body.access_token as string)))),
    );
  });
});

describe('B.20 malformed input at every /oauth/* endpoint: only RFC-shaped 4xx, never 5xx', () => {
  let world: OAuthWorld;
  let browser: Browser;
  before(async () => {
    world = await startOAuthServer();
    browser = await signedInBrowser(world);
  });
  after(() => world.close());

  const keys = fc.constantFrom(
    'grant_type',
    'code',
    'redirect_uri',
    'client_id',
    'client_secret',
    'refresh_token',
    'username',
    'password',
    'scope',
    'code_verifier',
    'token',
    'token_type_hint',
    'state',
    'response_type',
    'code_challenge',
    'code_challenge_method',
    'authenticity_token',
    'decision',
    '__proto__',
    'constructor',
  );
  const values = fc.oneof(
    fc.string(),
    fc.constantFrom(
      'authorization_code',
      'password',
      'refresh_token',
      'code',
      'S256',
      REDIRECT,
      '',
    ),
    fc.array(fc.string(), { maxLength: 3 }),
    fc.integer(),
    fc.constant(null),
    fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
  );
  const bodies = fc.dictionary(keys, values, { maxKeys: 6 });
  const authHeaders = fc.oneof(
    fc.constant(undefined),
    fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
    fc.string().map((s) => `Basic ${s}`),
    fc.string().map((s) => `Bearer ${s}`),
  );
  const encodings = fc.constantFrom('form', 'json', 'text', 'garbage-json', 'none');

  const encode = (
    body: Record<string, unknown>,
    encoding: string,
  ): { type?: string; payload?: string } => {
    switch (encoding) {
      case 'form': {
        const params = new URLSearchParams();
        for (const [k, v] of Object.entries(body)) {
          for (const item of Array.isArray(v) ? v : [v])
            params.append(k, typeof item === 'string' ? item : String(JSON.stringify(item)));
        }
        return { type: 'application/x-www-form-urlencoded', payload: params.toString() };
      }
      case 'json':
        return { type: 'application/json', payload: JSON.stringify(body) };
      case 'text':
        return { type: 'text/plain', payload: JSON.stringify(body) };
      case 'garbage-json':
        return { type: 'application/json', payload: '{"a":' };
      default:
        return {};
    }
  };

  for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
    it(`POST ${path}`, async () => {
      await fc.assert(
        fc.asyncProperty(bodies, authHeaders, encodings, async (body, auth, encoding) => {
          const { type, payload } = encode(body, encoding);
          const headers: Record<string, string> = {};
          if (type) headers['content-type'] = type;
          if (auth !== undefined && /^[\x20-\x7e]*$/.test(auth)) headers.authorization = auth;
          const res = await fetch(`${world.server.url}${path}`, {
            method: 'POST',
            headers,
            ...(payload !== undefined ? { body: payload } : {}),
          });
          const text = await res.text();
          assert.ok(res.status < 500, `${res.status} ${text}`);
          assert.equal(res.headers.get('cache-control'), 'no-store');
          if (res.status >= 400) {
            const json = JSON.parse(text) as { error?: unknown };
            assert.equal(typeof json.error, 'string');
          }
        }),
        { numRuns: 60 },
      );
      world.server.clock.advance(3_600_000);
    });
  }

  it('GET /oauth/token/info with arbitrary headers and query', async () => {
    await fc.assert(
      fc.asyncProperty(authHeaders, fc.string(), async (auth, query) => {
        const headers: Record<string, string> = {};
        if (auth !== undefined && /^[\x20-\x7e]*$/.test(auth)) headers.authorization = auth;
        const res = await fetch(
          `${world.server.url}/oauth/token/info?access_token=${encodeURIComponent(query)}&access_token=${query.length}`,
          { headers },
        );
        assert.ok(res.status === 400 || res.status === 401, String(res.status));
        assert.equal(typeof ((await res.json()) as { error: unknown }).error, 'string');
      }),
      { numRuns: 40 },
    );
  });

  it('GET and POST /oauth/authorize', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, fc.boolean(), async (body, useApp) => {
        const params = new URLSearchParams();
        if (useApp) params.append('client_id', world.app.uid);
        for (const [k, v] of Object.entries(body)) {
          for (const item of Array.isArray(v) ? v : [v])
            params.append(k, typeof item === 'string' ? item : String(JSON.stringify(item)));
        }
        const getReply = await browser.fetch(`/oauth/authorize?${params}`);
        assert.ok([200, 302, 400].includes(getReply.status), `${getReply.status}`);
        if (getReply.status === 302) {
          const location = getReply.headers.get('location')!;
          assert.ok(location.startsWith(REDIRECT) || location === '/users/sign_in', location);
        }
        const postReply = await browser.fetch('/oauth/authorize', { form: params });
        assert.ok([302, 400, 403].includes(postReply.status), `${postReply.status}`);
        if (postReply.status === 302) {
          const location = new URL(postReply.headers.get('location')!);
          assert.equal(
            location.searchParams.get('code'),
            null,
            'no code without a valid consent token',
          );
        }
      }),
      { numRuns: 60 },
    );
  });
});
