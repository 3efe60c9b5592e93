/**
 * Property-based: random query strings, paths (percent-encoding junk included) and header values
 * at every API endpoint never produce a 5xx; every answer is JSON, errors carry a `message` or
 * `error` string and successful event listings are arrays. Valid requests are mixed into every
 * stream and must still answer 200 with the exact events, so a server that refuses everything
 * (or answers 404 to all) fails these suites.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Fixtures } from '../helpers/fixtures.js';
import { type HttpResult, rawGet } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

/** Characters a path or query may carry on the wire (node refuses spaces and controls). */
const URL_CHARS = [
  ..."abcAZ09-._~!$&'()*+,;=:@/?#[]%",
  '%2F',
  '%2E',
  '%00',
  '%0A',
  '%ZZ',
  '%E0%A4%A',
  '%C3%BC',
  '%F0%9F%92%A9',
  '%25',
  '%',
  '..',
  '//',
];
const urlText = fc
  .array(fc.constantFrom(...URL_CHARS), { maxLength: 12 })
  .map((parts) => parts.join(''));

const PARAM_NAMES = [
  'action',
  'target_type',
  'before',
  'after',
  'sort',
  'page',
  'per_page',
  'scope',
  'private_token',
  'access_token',
  'action[]',
  'page[x]',
  'foo',
];
const PARAM_VALUES = fc.oneof(
  urlText,
  fc.constantFrom(
    'created',
    'pushed',
    'issue',
    'asc',
    'desc',
    '2026-01-02',
    '2026-02-30',
    '2026-01-02T10:00:00Z',
    '-1',
    '0',
    '1',
    '101',
    '99999999999999999999',
    '1e3',
    '0x10',
    '',
  ),
  fc.integer().map(String),
);
const query = fc
  .array(fc.tuple(fc.constantFrom(...PARAM_NAMES), PARAM_VALUES), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

/** Printable ASCII, which node's client lets through as a header value. */
const headerValue = fc
  .array(fc.integer({ min: 0x20, max: 0x7e }), { maxLength: 40 })
  .map((codes) => String.fromCharCode(...codes).trim());

function assertWellFormed(res: HttpResult, listing: boolean, label: string) {
  assert.ok(res.status < 500, `${label}: ${res.status} ${res.text}`);
  assert.equal(res.headers.get('content-type'), 'application/json', label);
  assert.notEqual(res.body, undefined, `${label}: not JSON: ${res.text}`);
  if (res.status >= 400) {
    const body = res.body as Record<string, unknown>;
    assert.ok(
      typeof body.message === 'string' || typeof body.error === 'string',
      `${label}: ${res.text}`,
    );
    assert.ok(!res.text.includes('FST_'), `${label}: ${res.text}`);
  } else if (listing) {
    assert.ok(Array.isArray(res.body), `${label}: ${res.text}`);
  }
}

for (const dialect of DIALECTS) {
  describe(`fuzzing the REST face (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let projectId: number;
    /** Ids of the seeded events, oldest first. */
    const eventIds: number[] = [];

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          projectId = (await f.project('acme/app', alice.id, 'public')).id;
          for (let i = 0; i < 5; i++) {
            const event = await f.event({
              projectId,
              authorId: alice.id,
              action: i % 2 ? 'pushed' : 'joined',
              createdAt: Date.UTC(2026, 0, 1 + i),
              ...(i % 2 ? { push: { commits: [{ id: 'a'.repeat(40), message: 'x' }] } } : {}),
            });
            eventIds.push(event.id);
          }
          token = await f.token(alice.id, ['api']);
        },
      });
    });
    after(() => server.close());

    const endpoints = () => [
      { path: '/api/v4/events', listing: true },
      { path: '/api/v4/users/alice/events', listing: true },
      { path: `/api/v4/projects/${projectId}/events`, listing: true },
      { path: '/api/v4/projects/acme%2Fapp/events', listing: true },
      { path: `/api/v4/${projectId}/events`, listing: true },
      { path: '/api/v4/user', listing: false },
      { path: '/api/v4/version', listing: false },
    ];
    const auth = fc.constantFrom<Record<string, string>>(
      {},
      { 'PRIVATE-TOKEN': 'valid' },
      { Authorization: 'Bearer valid' },
      { 'PRIVATE-TOKEN': 'glpat-garbage' },
    );
    const withToken = (headers: Record<string, string>) =>
      Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('valid', token)]));

    /** Valid requests with answers known from the seed, one picked per fuzz step. */
    const valid = (): Array<{
      path: string;
      headers: Record<string, string>;
      ids: number[];
      actions: string[];
    }> => [
      {
        path: `/api/v4/projects/${projectId}/events?per_page=2&sort=asc`,
        headers: {},
        ids: eventIds.slice(0, 2),
        actions: ['joined', 'pushed to'],
      },
      {
        path: '/api/v4/projects/acme%2Fapp/events?action=pushed',
        headers: { 'PRIVATE-TOKEN': token },
        ids: [eventIds[3]!, eventIds[1]!],
        actions: ['pushed to', 'pushed to'],
      },
      {
        path: '/api/v4/users/alice/events?target_type=&page=1&after=2025-12-31&before=2026-01-03',
        headers: { Authorization: `Bearer ${token}` },
        ids: [eventIds[1]!, eventIds[0]!],
        actions: ['pushed to', 'joined'],
      },
      {
        path: '/api/v4/events?per_page=1&page=5',
        headers: { 'PRIVATE-TOKEN': token },
        ids: [eventIds[0]!],
        actions: ['joined'],
      },
    ];

    /** A valid request still gets exactly its events: the fuzzing broke nothing. */
    async function assertValidStillAnswers(which: number) {
      const request = valid()[which % valid().length]!;
      const res = await rawGet(server.url, request.path, request.headers);
      assert.equal(res.status, 200, `${request.path}: ${res.text}`);
      const body = res.body as Array<{ id: number; action_name: string }>;
      assert.deepEqual(
        body.map((e) => e.id),
        request.ids,
        request.path,
      );
      assert.deepEqual(
        body.map((e) => e.action_name),
        request.actions,
        request.path,
      );
    }

    it('random query strings on every endpoint', async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 6 }), query, auth, async (which, q, headers) => {
          const { path, listing } = endpoints()[which]!;
          const res = await rawGet(server.url, `${path}?${q}`, withToken(headers));
          assertWellFormed(res, listing, `${path}?${q}`);
          await assertValidStillAnswers(which);
        }),
        { numRuns: 250 },
      );
    });

    it('random path segments where ids go, and random paths under /api/v4', async () => {
      const templates = [
        (s: string) => `/api/v4/users/${s}/events`,
        (s: string) => `/api/v4/projects/${s}/events`,
        (s: string) => `/api/v4/${s}/events`,
        (s: string) => `/api/v4/${s}`,
        (s: string) => `/api/v4/projects/${s}`,
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: templates.length - 1 }),
          // Text, or a number of any size: PostgreSQL's ids are 32-bit, JavaScript's 53.
          fc.oneof(urlText, fc.maxSafeNat().map(String), fc.bigInt({ min: 0n }).map(String)),
          auth,
          async (which, segment, headers) => {
            const path = templates[which]!(segment);
            const res = await rawGet(server.url, path, withToken(headers));
            // Only the three listing routes can answer 2xx with a list.
            assertWellFormed(res, which < 3, path);
            await assertValidStillAnswers(which);
          },
        ),
        { numRuns: 250 },
      );
    });

    it('random header values on every endpoint', async () => {
      const names = [
        'PRIVATE-TOKEN',
        'Authorization',
        'Content-Type',
        'Accept',
        'X-Forwarded-Host',
        'X-Forwarded-For',
        'X-Request-Id',
        'Cookie',
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 6 }),
          fc.array(fc.tuple(fc.constantFrom(...names), headerValue), { maxLength: 4 }),
          fc.boolean(),
          async (which, pairs, bearerPrefix) => {
            const { path, listing } = endpoints()[which]!;
            const headers: Record<string, string> = {};
            for (const [name, value] of pairs) {
              headers[name] = name === 'Authorization' && bearerPrefix ? `Bearer ${value}` : value;
            }
            const res = await rawGet(server.url, path, headers);
            assertWellFormed(res, listing, `${path} ${JSON.stringify(headers)}`);
            await assertValidStillAnswers(which);
          },
        ),
        { numRuns: 250 },
      );
    });

    it('random query strings as DELETE with a JSON content type and no body', async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 6 }), query, async (which, q) => {
          const { path } = endpoints()[which]!;
          const res = await rawGet(
            server.url,
            `${path}?${q}`,
            { 'Content-Type': 'application/json', 'PRIVATE-TOKEN': token },
            'DELETE',
          );
          assertWellFormed(res, false, `DELETE ${path}?${q}`);
          assert.ok(res.status >= 400, `DELETE ${path}: ${res.status}`);
          await assertValidStillAnswers(which);
        }),
        { numRuns: 60 },
      );
    });
  });
}
