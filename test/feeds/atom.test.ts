/**
 * Atom feeds (src/feeds/): GitLab's paths, the feed token (shown and reset on the profile page),
 * read-scoped tokens, visibility as the API's, conditional polling; every document is read by a
 * real feed parser (feedparser).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/domain/secrets.js';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { Browser, PASSWORD, csrfOf } from '../oauth/support.js';
import { parseFeed } from './parse.js';

const ATOM = 'application/atom+xml; charset=utf-8';
const DAY = (d: number, h = 10) => Date.UTC(2026, 0, d, h, 0, 0);

for (const dialect of DIALECTS) {
  describe(`Atom feeds (${dialect})`, () => {
    let server: TestServer;
    let f: Fixtures;
    const ids = { alice: 0, bob: 0, api: 0, secret: 0, issue: 0, mr: 0, secretIssue: 0 };
    const tokens = { aliceApi: '', aliceReadUser: '', bob: '' };

    before(async () => {
      const passwordHash = await hashPassword(PASSWORD);
      server = await startServer({
        dialect,
        seed: async (store) => {
          f = new Fixtures(store);
          const alice = await f.user('alice', { name: 'Alice Moreau', passwordHash });
          const bob = await f.user('bob', { passwordHash });
          ids.alice = alice.id;
          ids.bob = bob.id;
          ids.api = (await f.project('acme/platform/api', alice.id, 'public')).id;
          ids.secret = (await f.project('acme/secret', alice.id, 'private')).id;
          await f.member(ids.api, alice.id, ACCESS_LEVELS.owner);
          await f.member(ids.secret, alice.id, ACCESS_LEVELS.owner);
          const issue = await f.issue(ids.api, alice.id, 'Login fails <on> Safari & Edge');
          const mr = await f.mergeRequest(ids.api, alice.id, 'Fix login');
          const secretIssue = await f.issue(ids.secret, alice.id, 'Secret plan');
          const note = await f.note(ids.api, alice.id, { type: 'Issue', id: issue.id }, 'Seen it');
          ids.issue = issue.iid;
          ids.mr = mr.iid;
          ids.secretIssue = secretIssue.iid;
          const base = { projectId: ids.api, authorId: alice.id };
          await f.event({
            ...base,
            action: 'created',
            targetType: 'Issue',
            targetId: issue.id,
            issueId: issue.id,
            createdAt: DAY(2),
          });
          await f.event({
            ...base,
            action: 'commented',
            targetType: 'Note',
            targetId: note.id,
            issueId: issue.id,
            createdAt: DAY(3),
          });
          await f.event({
            ...base,
            action: 'merged',
            targetType: 'MergeRequest',
            targetId: mr.id,
            createdAt: DAY(4),
          });
          await f.event({
            ...base,
            action: 'pushed',
            createdAt: DAY(5),
            push: {
              ref: 'main',
              from: 'c'.repeat(40),
              to: 'd'.repeat(40),
              commits: [{ id: 'd'.repeat(40), message: 'Speed up login\n\nDetails' }],
            },
          });
          await f.event({
            projectId: ids.secret,
            authorId: alice.id,
            action: 'created',
            targetType: 'Issue',
            targetId: secretIssue.id,
            issueId: secretIssue.id,
            createdAt: DAY(6),
          });
          tokens.aliceApi = await f.token(alice.id, ['api']);
          tokens.aliceReadUser = await f.token(alice.id, ['read_user']);
          tokens.bob = await f.token(bob.id, ['read_api']);
        },
      });
      f = new Fixtures(server.store);
    });
    after(() => server.close());

    const fetchFeed = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, { headers });

    async function feed(path: string, headers: Record<string, string> = {}) {
      const response = await fetchFeed(path, headers);
      const text = await response.text();
      assert.equal(response.status, 200, `${path}: ${text}`);
      assert.equal(response.headers.get('content-type'), ATOM);
      const parsed = parseFeed(text);
      assert.equal(parsed.bozo, 0, `${path}: ${parsed.bozo_exception}`);
      assert.equal(parsed.version, 'atom10');
      return { parsed, response, text };
    }

    const feedToken = (userId: number) => server.services.feedTokens.tokenFor(userId);
    const u = () => server.url;

    it('a user feed, anonymous: public activity only, GitLab titles, links, authors, times', async () => {
      const { parsed, text } = await feed('/alice.atom');
      assert.equal(parsed.feed.title, 'alice activity');
      assert.equal(parsed.feed.id, `${u()}/alice`);
      assert.equal(parsed.feed.updated, '2026-01-05T10:00:00Z');
      assert.deepEqual(parsed.feed.links, [
        { rel: 'self', href: `${u()}/alice.atom` },
        { rel: 'alternate', href: `${u()}/alice` },
      ]);
      const p = `${u()}/acme/platform/api`;
      assert.deepEqual(
        parsed.entries.map((e) => [e.title, e.link, e.updated]),
        [
          [
            'alice pushed to branch main at acme / platform / api',
            `${p}/-/compare/${'c'.repeat(40)}...${'d'.repeat(40)}`,
            '2026-01-05T10:00:00Z',
          ],
          [
            `alice accepted merge request !${ids.mr} at acme / platform / api`,
            `${p}/-/merge_requests/${ids.mr}`,
            '2026-01-04T10:00:00Z',
          ],
          [
            `alice commented on issue #${ids.issue} at acme / platform / api`,
            parsed.entries[2]!.link,
            '2026-01-03T10:00:00Z',
          ],
          [
            `alice opened issue #${ids.issue} at acme / platform / api`,
            `${p}/-/issues/${ids.issue}`,
            '2026-01-02T10:00:00Z',
          ],
        ],
      );
      assert.match(parsed.entries[2]!.link, new RegExp(`^${p}/-/issues/${ids.issue}#note_\\d+$`));
      for (const entry of parsed.entries) {
        assert.equal(entry.author, 'Alice Moreau');
        assert.equal(entry.author_uri, `${u()}/alice`);
        assert.match(entry.id, /^tag:127\.0\.0\.1,2005:Event\/\d+$/);
      }
      assert.equal(parsed.entries[3]!.summary, 'Login fails <on> Safari & Edge');
      assert.match(parsed.entries[0]!.summary!, /Speed up login/);
      assert.doesNotMatch(text, /Secret plan|acme\/secret/);
    });

    it('a nested project feed; a private project is 404 to anonymous readers and non-members', async () => {
      const { parsed } = await feed('/acme/platform/api.atom');
      assert.equal(parsed.feed.title, 'acme / platform / api activity');
      assert.equal(parsed.entries.length, 4);
      assert.equal((await fetchFeed('/acme/secret.atom')).status, 404);
      const bob = await feedToken(ids.bob);
      const refused = await fetchFeed(`/acme/secret.atom?feed_token=${bob}`);
      assert.equal(refused.status, 404);
      assert.equal(await refused.text(), '404 Not Found\n');
      assert.equal((await fetchFeed('/acme/nothing.atom')).status, 404);
      assert.equal((await fetchFeed('/nobody.atom')).status, 404);
    });

    it('the member reads the private feed with a feed token, private_token or PRIVATE-TOKEN', async () => {
      const token = await feedToken(ids.alice);
      assert.match(token, /^glft-[A-Za-z0-9_-]{32}$/);
      for (const [path, headers] of [
        [`/acme/secret.atom?feed_token=${token}`, {}],
        [`/acme/secret.atom?private_token=${tokens.aliceApi}`, {}],
        ['/acme/secret.atom', { 'private-token': tokens.aliceReadUser }],
      ] as const) {
        const { parsed, response } = await feed(path, headers);
        assert.deepEqual(
          parsed.entries.map((e) => e.title),
          [`alice opened issue #${ids.secretIssue} at acme / secret`],
        );
        if (path.includes('token='))
          assert.equal(response.headers.get('cache-control'), 'no-store');
      }
      // A feed token is not an API credential.
      const api = await fetch(`${u()}/api/v4/events?private_token=${token}`);
      assert.equal(api.status, 401);
      // A user feed as the member includes the private event; as bob it does not.
      const own = await feed(`/alice.atom?feed_token=${token}`);
      assert.equal(own.parsed.entries.length, 5);
      const bobs = await feed(`/alice.atom?feed_token=${await feedToken(ids.bob)}`);
      assert.equal(bobs.parsed.entries.length, 4);
    });

    it('the dashboard feed needs a reader and lists their projects’ activity', async () => {
      const anonymous = await fetchFeed('/dashboard/projects.atom');
      assert.equal(anonymous.status, 401);
      assert.equal(await anonymous.text(), '401 Unauthorized\n');
      const { parsed } = await feed(
        `/dashboard/projects.atom?feed_token=${await feedToken(ids.alice)}`,
      );
      assert.equal(parsed.feed.title, 'Activity');
      assert.equal(parsed.entries.length, 5);
      const bob = await feed(`/dashboard/projects.atom?feed_token=${await feedToken(ids.bob)}`);
      assert.equal(bob.parsed.entries.length, 0);
    });

    it('a first feed token asked for by many requests at once is made once, and all get it', async () => {
      // Pages signed in ask for the user's feed token on first render; parallel first renders
      // used to race to insert it, and the loser's unique violation was a 500 on PostgreSQL.
      for (const name of ['carol', 'dave', 'erin']) {
        const user = await f.user(name);
        const tokens = await Promise.all(Array.from({ length: 16 }, () => feedToken(user.id)));
        assert.equal(new Set(tokens).size, 1, name);
        assert.match(tokens[0]!, /^glft-/);
        assert.equal((await fetchFeed(`/${name}.atom?feed_token=${tokens[0]}`)).status, 200);
      }
    });

    it('unknown, malformed or repeated feed tokens are 401, never the public feed', async () => {
      for (const query of [
        'feed_token=glft-' + 'A'.repeat(32),
        'feed_token=',
        'feed_token=x',
        `feed_token=${await feedToken(ids.alice)}&feed_token=x`,
      ]) {
        assert.equal((await fetchFeed(`/alice.atom?${query}`)).status, 401, query);
      }
    });

    it('the profile page shows the feed token; a reset (confirmed, with CSRF) invalidates the old one', async () => {
      const browser = new Browser(u());
      assert.equal((await browser.signIn('alice', PASSWORD)).status, 303);
      const page = await browser.fetch('/profile/feed_token');
      assert.equal(page.status, 200);
      const old = await feedToken(ids.alice);
      assert.ok(page.text.includes(old));
      assert.ok(page.text.includes(`${u()}/alice.atom?feed_token=${old}`));
      const confirm = await browser.fetch('/profile/feed_token/reset');
      assert.equal(confirm.status, 200);
      // Without the form token: refused, nothing changes.
      const forged = await browser.fetch('/profile/feed_token/reset', { form: {} });
      assert.equal(forged.status, 403);
      assert.equal((await fetchFeed(`/alice.atom?feed_token=${old}`)).status, 200);
      const reset = await browser.fetch('/profile/feed_token/reset', {
        form: { authenticity_token: csrfOf(confirm.text) },
      });
      assert.equal(reset.status, 303);
      assert.equal(reset.headers.get('location'), '/profile/feed_token?done=reset');
      assert.equal((await fetchFeed(`/alice.atom?feed_token=${old}`)).status, 401);
      const fresh = await feedToken(ids.alice);
      assert.notEqual(fresh, old);
      const after = await browser.fetch('/profile/feed_token?done=reset');
      assert.ok(after.text.includes(fresh) && !after.text.includes(old));
      await feed(`/alice.atom?feed_token=${fresh}`);
      // Only the digest is stored.
      const rows = await server.store.db.selectFrom('feed_tokens').selectAll().execute();
      assert.ok(rows.every((r) => !Object.values(r).includes(fresh)));
    });

    it('feeds answer If-None-Match: 304 while unchanged, 200 after a new event', async () => {
      const path = '/acme/platform/api.atom';
      const first = await fetchFeed(path);
      const tag = first.headers.get('etag')!;
      assert.match(tag, /^"[A-Za-z0-9_-]{32}"$/);
      assert.equal(first.headers.get('x-poll-interval'), '60');
      await first.arrayBuffer();
      const same = await fetchFeed(path, { 'if-none-match': tag });
      assert.equal(same.status, 304);
      assert.equal(await same.text(), '');
      await f.event({
        projectId: ids.api,
        authorId: ids.alice,
        action: 'closed',
        targetType: 'MergeRequest',
        targetId: 1,
        createdAt: DAY(7),
      });
      const changed = await fetchFeed(path, { 'if-none-match': tag });
      assert.equal(changed.status, 200);
      assert.notEqual(changed.headers.get('etag'), tag);
      const parsed = parseFeed(await changed.text());
      assert.equal(parsed.entries.length, 5);
      assert.equal(parsed.feed.updated, '2026-01-07T10:00:00Z');
    });
  });
}
