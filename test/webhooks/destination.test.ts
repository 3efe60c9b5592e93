/**
 * With local requests not allowed (the default), every destination but public unicast (loopback,
 * private, link-local, unspecified, multicast, reserved, and IPv4 of those inside IPv6) is
 * refused before any connection: the checks below never open a socket (a
 * receiver counts its connections), and a name that resolves to loopback is refused like the
 * address itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  REFUSAL_TEXT,
  type Refusal,
  classifyAddress,
  parseDestination,
} from '../../src/domain/webhook-destination.js';
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

  it('never asks DNS about a name under .invalid (RFC 6761): refused at once as unresolvable', async () => {
    const before = dns.asked.length;
    for (const url of [
      'https://receiver.example.invalid/hook',
      'http://INVALID./',
      'http://a.invalid.',
    ]) {
      const checked = await checkDestination(url, false, dns.resolve);
      assert.deepEqual(checked, {
        ok: false,
        error: 'URL is blocked: Host cannot be resolved or invalid',
      });
    }
    assert.deepEqual(dns.asked.slice(before), []);
    // A name that merely contains the word is asked as any other.
    await checkDestination('http://invalid.example/', false, dns.resolve);
    assert.deepEqual(dns.asked.slice(before), ['invalid.example']);
  });

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
                  : (a >= 224 && a < 240) || address === '255.255.255.255'
                    ? 'multicast'
                    : a >= 240 ||
                        (a === 192 && b === 0 && (c === 0 || c === 2)) ||
                        (a === 192 && b === 88 && c === 99) ||
                        (a === 198 && (b === 18 || b === 19)) ||
                        (a === 198 && b === 51 && c === 100) ||
                        (a === 203 && b === 0 && c === 113) ||
                        (a === 192 && b === 175 && c === 48) ||
                        (a === 192 && b === 31 && c === 196) ||
                        (a === 192 && b === 52 && c === 193)
                      ? 'reserved'
                      : null;
        assert.equal(classifyAddress(address), expected, address);
      }),
      { numRuns: 2000 },
    );
  });
});

/** `a.b.c.d` as the two 16-bit groups an IPv6 address carries it in (inverted for Teredo). */
function groups(v4: string, invert = false): [string, string] {
  const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
  const mask = invert ? 0xffff : 0;
  return [(((a << 8) | b) ^ mask).toString(16), (((c << 8) | d) ^ mask).toString(16)];
}

/** Every way an IPv6 address can carry `v4` to it. */
function wrappings(v4: string): Record<string, string> {
  const [h, l] = groups(v4);
  const [ih, il] = groups(v4, true);
  return {
    'IPv4-mapped': `::ffff:${v4}`,
    'IPv4-mapped, hex': `::ffff:${h}:${l}`,
    'IPv4-translated': `::ffff:0:${h}:${l}`,
    'IPv4-compatible': `::${v4}`,
    'IPv4-compatible, hex': `::${h}:${l}`,
    NAT64: `64:ff9b::${h}:${l}`,
    'NAT64, dotted': `64:ff9b::${v4}`,
    '6to4': `2002:${h}:${l}::1`,
    'Teredo client': `2001:0:5db8:d822:8000:f227:${ih}:${il}`,
    'Teredo server': `2001:0:${h}:${l}:8000:f227:a247:29dd`,
  };
}

describe('webhook destination classes (ipaddr.js ranges, embedded IPv4 unwrapped)', () => {
  const table: [string, string | null][] = [
    // IPv4 inside IPv6: judged by the IPv4 address.
    ['::127.0.0.1', 'localhost'],
    ['::ffff:0:7f00:1', 'localhost'],
    ['::ffff:7f00:1', 'localhost'],
    ['64:ff9b::7f00:1', 'localhost'],
    ['64:ff9b::a00:1', 'local_network'],
    ['2002:7f00:1::', 'localhost'],
    ['2002:c0a8:101::1', 'local_network'],
    ['2001:0:5db8:d822:8000:f227:80ff:fffe', 'localhost'],
    ['2001:0:7f00:1:8000:f227:a247:29dd', 'localhost'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['64:ff9b::a9fe:a9fe', 'link_local'],
    // NAT64's local-use prefix belongs to a local network, whatever it carries.
    ['64:ff9b:1::5db8:d822', 'local_network'],
    // Site-local (deprecated) and unique local.
    ['fec0::1', 'local_network'],
    ['fd12:3456::1', 'local_network'],
    // Documentation, benchmarking and other reserved ranges.
    ['192.0.2.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.200', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.254', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'reserved'],
    ['::ffff:192.0.2.1', 'reserved'],
    ['64:ff9b::c612:1', 'reserved'],
    ['255.255.255.255', 'multicast'],
    ['ff02::1', 'multicast'],
    ['::', 'unspecified'],
    ['::1', 'localhost'],
    ['fe80::1', 'link_local'],
    // Public unicast, bare and inside the wrappings that lead to it.
    ['93.184.216.34', null],
    ['8.8.8.8', null],
    ['1.1.1.1', null],
    ['2606:4700:4700::1111', null],
    ['2a00:1450:4001:80b::200e', null],
    ['::ffff:93.184.216.34', null],
    ['64:ff9b::5db8:d822', null],
    ['2002:5db8:d822::1', null],
  ];

  for (const [address, refusal] of table) {
    const url = address.includes(':') ? `http://[${address}]:8080/hook` : `http://${address}/hook`;
    it(`${refusal === null ? 'accepts' : 'refuses'} ${url}`, async () => {
      assert.equal(classifyAddress(address), refusal);
      // As a literal in the URL, and as what a name resolved to at delivery time.
      const resolve: Resolver = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
      for (const target of [url, 'http://hooks.example/hook']) {
        const checked = await checkDestination(target, false, resolve);
        if (refusal === null) {
          assert.equal(checked.ok, true, target);
        } else {
          assert.deepEqual(
            checked,
            { ok: false, error: `URL is blocked: ${REFUSAL_TEXT[refusal as Refusal]}` },
            target,
          );
        }
      }
      // The local-requests setting (how the suite reaches its receivers) lets everything through.
      assert.equal((await checkDestination(url, true, resolve)).ok, true);
    });
  }

  it('refuses every private, loopback or link-local IPv4 address in every IPv6 wrapping', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const local = fc.oneof(
      fc.tuple(fc.constant(127), octet, octet, octet),
      fc.tuple(fc.constant(10), octet, octet, octet),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
      fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
      fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
      fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet),
      fc.tuple(fc.constant(0), octet, octet, octet),
    );
    fc.assert(
      fc.property(local, (octets) => {
        const v4 = octets.join('.');
        const own = classifyAddress(v4);
        assert.notEqual(own, null, v4);
        for (const [form, v6] of Object.entries(wrappings(v4))) {
          // Through the URL parser (which rewrites the literal) and as a resolved address.
          const parsed = parseDestination(`https://[${v6}]/hook`, false);
          assert.deepEqual(parsed, { ok: false, refusal: own }, `${form}: ${v6}`);
          assert.equal(classifyAddress(v6), own, `${form}: ${v6}`);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('lets public IPv4 addresses through every wrapping but the local NAT64 prefix', () => {
    for (const v4 of ['93.184.216.34', '8.8.4.4']) {
      for (const [form, v6] of Object.entries(wrappings(v4))) {
        assert.equal(classifyAddress(v6), null, `${form}: ${v6}`);
      }
    }
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
    'http://[::127.0.0.1]/',
    'http://[::ffff:0:7f00:1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://[fec0::1]/',
    'http://192.0.2.10/',
    'http://198.18.0.1/',
    'http://[2001:db8::1]/',
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
