/**
 * B.6 / D9: credentials in a request's query string never reach the access log, however the
 * client spelled the parameter: percent-encoded names (which the server decodes and honours), an
 * encoded `=`, mixed case, double encoding. Runs a real server and reads its log stream.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { type TestServer, startServer } from '../helpers/server.js';

const CREDENTIAL_PARAMS = [
  'private_token',
  'access_token',
  'bearer_token',
  'code',
  'client_secret',
  'password',
  'refresh_token',
];

const pct = (c: string, lower: boolean) => {
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? hex : hex.toUpperCase()}`;
};

/** Spellings of one parameter name that decode (once or twice) to it, ignoring case. */
function spellings(name: string): string[] {
  const chars = [...name];
  return [
    name,
    name.toUpperCase(),
    chars.map((c, i) => (i % 2 ? c.toUpperCase() : c)).join(''),
    `${pct(chars[0]!, true)}${name.slice(1)}`,
    `${pct(chars[0]!, false)}${name.slice(1)}`,
    chars.map((c) => pct(c, true)).join(''),
    chars.map((c, i) => (i % 2 ? pct(c, false) : c.toUpperCase())).join(''),
    `%25${pct(chars[0]!, false).slice(1)}${name.slice(1)}`,
  ];
}

const EQUALS = ['=', '%3D', '%3d'];

describe('credentials in query strings are redacted from the access log', () => {
  let server: TestServer;
  let token: string;
  const lines: string[] = [];
  let pending = '';

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        pending += chunk.toString('utf8');
        const parts = pending.split('\n');
        pending = parts.pop()!;
        lines.push(...parts.filter(Boolean));
        done();
      },
    });
    server = await startServer({
      config: { logLevel: 'info' },
      logStream: sink,
      seed: async (store) => {
        const f = new Fixtures(store);
        const alice = await f.user('alice');
        token = await f.token(alice.id, ['api']);
      },
    });
  });
  after(() => server.close());

  /** The `req.url` of every logged request carrying `marker`. */
  const loggedUrls = (marker: string): string[] =>
    lines
      .map((line) => JSON.parse(line) as { req?: { url?: string } })
      .map((entry) => entry.req?.url)
      .filter((url): url is string => url !== undefined && url.includes(marker));

  it('a percent-encoded private_token/access_token authenticates, and is not logged', async () => {
    for (const name of ['private_token', 'access_token']) {
      for (const spelled of spellings(name).filter((s) => s.toLowerCase() !== s.toUpperCase())) {
        const path = `/api/v4/user?${spelled}=${token}`;
        const res = await fetch(`${server.url}${path}`);
        // The server honours the names it decodes to exactly this one (case matters to it).
        if (decodeURIComponent(spelled) === name) assert.equal(res.status, 200, path);
        await res.arrayBuffer();
      }
    }
    const text = lines.join('\n');
    assert.ok(text.includes('/api/v4/user?'), 'the requests were logged');
    assert.ok(!text.includes(token), 'the token is never in the log');
  });

  it('every credential parameter, in every spelling, is redacted; other parameters stay', async () => {
    const secrets: string[] = [];
    let n = 0;
    for (const name of CREDENTIAL_PARAMS) {
      for (const spelled of spellings(name)) {
        for (const equals of EQUALS) {
          const secret = `s3cret-${randomBytes(12).toString('hex')}`;
          secrets.push(secret);
          const marker = `mark${n++}`;
          const path = `/api/v4/projects?per_page=2&${spelled}${equals}${secret}&ref=${marker}`;
          const res = await fetch(`${server.url}${path}`);
          await res.arrayBuffer();
          const urls = loggedUrls(marker);
          assert.equal(urls.length, 1, `${path} was logged once: ${JSON.stringify(urls)}`);
          assert.ok(!urls[0]!.includes(secret), `${path} logged as ${urls[0]}`);
          assert.match(urls[0]!, /^\/api\/v4\/projects\?per_page=2&[^&]*\[REDACTED\]&ref=mark\d+$/);
        }
      }
    }
    const text = lines.join('\n');
    for (const secret of secrets) assert.ok(!text.includes(secret), secret);
  });
});
