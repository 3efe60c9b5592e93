/**
 * Property-based: random feed paths (nesting, percent-encoding junk) and token parameters never
 * produce a 5xx; errors are plain text; every 200 is Atom that feedparser reads without complaint.
 * Valid requests are mixed into every stream and must still answer 200 with the exact entries, so a
 * server refusing everything fails. And any text a user can type (controls, lone surrogates,
 * markup) comes out of a feed as the parser reads it back, minus what XML cannot carry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { Fixtures } from '../helpers/fixtures.js';
import { rawGet } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { parseFeeds } from './parse.js';

const ATOM = 'application/atom+xml; charset=utf-8';
const SEGMENT_CHARS = [
  ...'abcAZ09-._~',
  'acme',
  'platform',
  'api',
  'secret',
  'alice',
  '%2F',
  '%2E',
  '%00',
  '%0A',
  '%ZZ',
  '%C3%BC',
  '%25',
  '..',
  '.atom',
];
const junk = fc
  .array(fc.constantFrom(...SEGMENT_CHARS), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join(''));
/** Real paths (`alice`, `acme/platform/api`, `ACME/Secret`), near misses and junk. */
const segments = fc.oneof(
  fc.constantFrom(['alice'], ['acme', 'platform', 'api'], ['acme', 'secret'], ['ACME', 'Secret']),
  fc.array(fc.oneof(fc.constantFrom('alice', 'acme', 'platform', 'api', 'secret'), junk), {
    minLength: 1,
    maxLength: 24,
  }),
);

/** What XML 1.0 can carry; everything else is dropped by the feed (see feeds/atom.ts). */
const XML_CHARS = /[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
/** feedparser strips what Python's str.strip() calls whitespace from both ends of a text. */
const PY_SPACE =
  '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PY_STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'gu');
/**
 * feedparser reads the C1 controls U+0080–U+009F as the Windows-1252 characters of those bytes
 * (U+0088 comes back as U+02C6), as browsers read such references; the five bytes Windows-1252
 * leaves undefined stay. The feed sends them as they are; the oracle maps them as the parser does.
 */
const CP1252 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const C1 = /[\u0080-\u009f]/gu;
const xmlVisible = (text: string) =>
  [...text]
    .filter((c) => XML_CHARS.test(c))
    .join('')
    .replace(/\r\n?/g, '\n')
    // Stripped first: feedparser strips U+0085 from the ends before it maps the rest.
    .replace(PY_STRIP, '')
    .replace(C1, (c) => CP1252[c.charCodeAt(0) - 0x80]!);

for (const dialect of DIALECTS) {
  describe(`Atom feed properties (${dialect})`, () => {
    let server: TestServer;
    let f: Fixtures;
    const ids = { alice: 0, api: 0 };
    const valid = { feed: '', pat: '', bobFeed: '' };

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          f = new Fixtures(store);
          const alice = await f.user('alice');
          const bob = await f.user('bob');
          ids.alice = alice.id;
          ids.api = (await f.project('acme/platform/api', alice.id, 'public')).id;
          const secret = await f.project('acme/secret', alice.id, 'private');
          await f.member(ids.api, alice.id, ACCESS_LEVELS.owner);
          await f.member(secret.id, alice.id, ACCESS_LEVELS.owner);
          for (const projectId of [ids.api, secret.id]) {
            await f.event({ projectId, authorId: alice.id, action: 'created', createdAt: 1 });
          }
          valid.pat = await f.token(alice.id, ['read_api']);
          void bob;
        },
      });
      f = new Fixtures(server.store);
      valid.feed = await server.services.feedTokens.tokenFor(ids.alice);
      const bob = await server.store.users.byUsername('bob');
      valid.bobFeed = await server.services.feedTokens.tokenFor(bob!.id);
    });
    after(() => server.close());

    it('random paths and token parameters: no 5xx, text errors, parseable 200s; valid requests still work', async () => {
      const token = fc.oneof(
        fc.constantFrom(
          () => valid.feed,
          () => valid.bobFeed,
          () => valid.pat,
        ),
        fc.string({ maxLength: 40 }).map((s) => () => encodeURIComponent(s)),
        fc.constant(() => 'glft-' + 'A'.repeat(32)),
      );
      const request = fc.record({
        segments,
        param: fc.constantFrom(
          'feed_token',
          'private_token',
          'access_token',
          'other',
          'feed_token[]',
        ),
        token,
        etag: fc.option(fc.constantFrom('*', '"x"', 'W/"y"', ''), { nil: undefined }),
      });
      const bodies: string[] = [];
      await fc.assert(
        fc.asyncProperty(request, async ({ segments, param, token, etag }) => {
          const path = `/${segments.join('/')}.atom?${param}=${token()}`;
          const reply = await rawGet(
            server.url,
            path,
            etag === undefined ? {} : { 'if-none-match': etag },
          );
          assert.ok(reply.status < 500, `${path}: ${reply.status} ${reply.text}`);
          if (reply.status === 200) {
            assert.equal(reply.headers.get('content-type'), ATOM, path);
            bodies.push(reply.text);
          } else if (reply.status !== 304) {
            assert.ok([400, 401, 403, 404].includes(reply.status), `${path}: ${reply.status}`);
          }
          // A valid request in every run: the member's private feed, exactly one entry.
          const ok = await rawGet(server.url, `/acme/secret.atom?feed_token=${valid.feed}`);
          assert.equal(ok.status, 200);
          assert.equal(ok.headers.get('content-type'), ATOM);
          assert.equal((ok.text.match(/<entry>/g) ?? []).length, 1);
        }),
        { numRuns: 150 },
      );
      // Valid paths with valid tokens come up often enough that parsing is exercised.
      assert.ok(bodies.length >= 5, `only ${bodies.length} feeds served`);
      for (const [i, parsed] of parseFeeds(bodies).entries()) {
        assert.equal(parsed.bozo, 0, `${parsed.bozo_exception}\n${bodies[i]}`);
        assert.equal(parsed.version, 'atom10');
      }
    });

    it('any issue title comes back from the parser as typed (minus what XML cannot carry)', async () => {
      // Any code point but NUL, which PostgreSQL's text cannot hold (a write would be refused).
      const title = fc
        .string({ unit: 'binary', minLength: 1, maxLength: 30 })
        .map((s) => s.split(String.fromCharCode(0)).join(''))
        .filter((s) => s.length > 0);
      const titles = fc.array(title, { minLength: 5, maxLength: 5 });
      const runs: { titles: string[]; xml: string }[] = [];
      let day = 10;
      await fc.assert(
        fc.asyncProperty(titles, async (batch) => {
          for (const title of batch) {
            const issue = await f.issue(ids.api, ids.alice, title);
            await f.event({
              projectId: ids.api,
              authorId: ids.alice,
              action: 'created',
              targetType: 'Issue',
              targetId: issue.id,
              issueId: issue.id,
              createdAt: Date.UTC(2026, 1, day++),
            });
          }
          const reply = await rawGet(server.url, '/acme/platform/api.atom');
          assert.equal(reply.status, 200);
          runs.push({ titles: batch, xml: reply.text });
        }),
        // C1 controls, which feedparser maps to Windows-1252, in every run and not only by chance.
        {
          numRuns: 20,
          examples: [[['a\u0088b', '\u0085x\u0085', 'c\u0081', 'z\u009f', 'q\u0080']]],
        },
      );
      const parsed = parseFeeds(runs.map((r) => r.xml));
      for (const [i, feed] of parsed.entries()) {
        assert.equal(feed.bozo, 0, String(feed.bozo_exception));
        // Newest first: the batch's titles, reversed, are the first five summaries.
        const summaries = feed.entries.slice(0, 5).map((e) => e.summary);
        const expected = [...runs[i]!.titles].reverse().map(xmlVisible);
        assert.deepEqual(summaries, expected);
      }
    });
  });
}
