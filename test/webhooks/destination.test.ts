/**
 * With local requests not allowed (the default), loopback, private, link-local and unspecified
 * destinations are refused before any connection: the checks below never open a socket (a
 * receiver counts its connections), and a name that resolves to loopback is refused like the
 * address itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { classifyAddress } from '../../src/domain/webhook-destination.js';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import {
  type Resolver,
  checkDestination,
  sendWebhook,
} from '../../src/services/webhooks/sender.js';
import { Fixtures } from '../helpers/fixtures.js';
import { call } from '../helpers/http.js';
import { type TestServer, startServer } from '../helpers/server.js';
import { Receiver } from './receiver.js';

/** A resolver that knows a few names and records every question (no DNS traffic at all). */
function fakeResolver(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, asked };
}

describe('webhook destinations with local requests refused', () => {
  let receiver: Receiver;

  before(async () => {
    receiver = await new Receiver().listen();
  });
  after(() => receiver.close());

  const dns = fakeResolver({
    'rebind.example': ['127.0.0.1'],
    'mixed.example': ['93.184.216.34', '10.1.2.3'],
    'public.example': ['93.184.216.34'],
    'v6loop.example': ['::1'],
  });

  const refused: [string, string][] = [
    ['http://127.0.0.1/hook', 'Requests to localhost are not allowed'],
    ['http://127.8.9.10:8080/', 'Requests to localhost are not allowed'],
    ['http://10.0.0.1/hook', 'Requests to the local network are not allowed'],
    ['http://192.168.1.20/', 'Requests to the local network are not allowed'],
    ['http://172.16.5.4/', 'Requests to the local network are not allowed'],
    [
      'http://169.254.169.254/latest/meta-data/',
      'Requests to the link local network are not allowed',
    ],
    ['http://0.0.0.0:80/', 'Requests to the unspecified address are not allowed'],
    ['http://[::1]/', 'Requests to localhost are not allowed'],
    ['http://[::ffff:127.0.0.1]/', 'Requests to localhost are not allowed'],
    ['http://[fe80::1]/', 'Requests to the link local network are not allowed'],
    ['http://[fd00::1]/', 'Requests to the local network are not allowed'],
    ['http://localhost:3000/', 'Requests to localhost are not allowed'],
    ['http://LOCALHOST./', 'Requests to localhost are not allowed'],
    ['http://api.localhost/', 'Requests to localhost are not allowed'],
    ['http://rebind.example/hook', 'Requests to localhost are not allowed'],
    ['http://v6loop.example/hook', 'Requests to localhost are not allowed'],
    ['http://mixed.example/hook', 'Requests to the local network are not allowed'],
    ['ftp://public.example/', 'Only allowed schemes are http, https'],
    ['http://nowhere.example/', 'Host cannot be resolved or invalid'],
    ['not a url', 'Host cannot be resolved or invalid'],
  ];

  for (const [url, text] of refused) {
    it(`refuses ${url}`, async () => {
      const checked = await checkDestination(url, false, dns.resolve);
      assert.deepEqual(checked, { ok: false, error: `URL is blocked: ${text}` });
    });
  }

  it('resolves a name once and connects to that address only', async () => {
    const before = dns.asked.length;
    const checked = await checkDestination('https://public.example:8443/x', false, dns.resolve);
    assert.equal(checked.ok, true);
    assert.equal(checked.ok && checked.address, '93.184.216.34');
    assert.deepEqual(dns.asked.slice(before), ['public.example']);
    // An IP literal is never looked up.
    await checkDestination('http://93.184.216.34/', false, dns.resolve);
    assert.deepEqual(dns.asked.slice(before), ['public.example']);
  });

  it('sends nothing to a refused destination: not even a connection', async () => {
    const port = new URL(receiver.url).port;
    for (const url of [
      receiver.url,
      `http://localhost:${port}/`,
      `http://rebind.example:${port}/`,
    ]) {
      const result = await sendWebhook(
        { url, headers: {}, body: '{}', verifyTls: true },
        { allowLocal: false, timeoutMs: 1000, maxResponseBytes: 1024, resolve: dns.resolve },
      );
      assert.equal(result.refused, true, url);
      assert.equal(result.status, null);
      assert.match(result.error ?? '', /^URL is blocked: Requests to localhost are not allowed$/);
    }
    assert.equal(receiver.connections, 0);
    assert.equal(receiver.received.length, 0);
    // The same receiver is reached once local requests are allowed: the refusal was the check.
    const allowed = await sendWebhook(
      {
        url: `http://rebind.example:${port}/`,
        headers: { 'content-type': 'application/json' },
        body: '{}',
        verifyTls: true,
      },
      { allowLocal: true, timeoutMs: 1000, maxResponseBytes: 1024, resolve: dns.resolve },
    );
    assert.equal(allowed.status, 200);
    assert.equal(allowed.address, '127.0.0.1');
    assert.equal(receiver.received[0]!.headers.host, `rebind.example:${port}`);
  });

  it('classifies every IPv4 address in a refused block, and none outside them', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(octet, octet, octet, octet, (a, b, c, d) => {
        const address = `${a}.${b}.${c}.${d}`;
        const expected =
          a === 0
            ? 'unspecified'
            : a === 127
              ? 'localhost'
              : a === 169 && b === 254
                ? 'link_local'
                : a === 10 ||
                    (a === 172 && b >= 16 && b <= 31) ||
                    (a === 192 && b === 168) ||
                    (a === 100 && b >= 64 && b <= 127)
                  ? 'local_network'
                  : a >= 224
                    ? 'multicast'
                    : null;
        assert.equal(classifyAddress(address), expected, address);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the hooks API refuses local URLs by default', () => {
  let server: TestServer;
  let token: string;
  let projectId: number;

  before(async () => {
    server = await startServer({
      seed: async (store) => {
        const f = new Fixtures(store);
        const alice = await f.user('alice');
        const project = await f.project('alice/api', alice.id);
        await f.member(project.id, alice.id, ACCESS_LEVELS.maintainer);
        projectId = project.id;
        token = await f.token(alice.id);
      },
    });
  });
  after(() => server.close());

  for (const url of [
    'http://127.0.0.1/',
    'http://10.0.0.1/',
    'http://169.254.169.254/',
    'http://localhost/',
    'gopher://example.com/',
  ]) {
    it(`POST …/hooks with ${url} is 422 Invalid url given`, async () => {
      const res = await call(server.url, `/api/v4/projects/${projectId}/hooks`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body, { message: 'Invalid url given' });
    });
  }
});
