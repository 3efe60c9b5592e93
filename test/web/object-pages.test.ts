/**
 * The pages behind the links: an issue, a merge request, a milestone and their lists, a group.
 * Each answers what the API answers for the same viewer (a page is 404 exactly where REST is),
 * shows its title, state, author, description, notes in order and its own events, and renders
 * Markdown with raw HTML off and unsafe links dropped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/domain/secrets.js';
import { DIALECTS } from '../helpers/server.js';
import { Browser, PASSWORD } from '../oauth/support.js';
import { type Actors, api, startWithUsers } from '../writes/helpers.js';

const XSS_TITLE = 'Crash <img src=x onerror=alert(1)>';
const XSS_BODY = [
  '<script>alert(1)</script>',
  '',
  '[evil](javascript:alert(1)) [evil2](JaVaScRiPt:alert(2)) [ok](https://example.com/docs)',
  '',
  '**bold** and `code`',
].join('\n');
const BEFORE = 'a'.repeat(40);
const COMMIT = 'c0ffee'.padEnd(40, '1');
const XSS_NOTE = 'First <img src=y onerror=alert(3)> [x](javascript:alert(4))';

for (const dialect of DIALECTS) {
  describe(`the pages of issues, merge requests and milestones (${dialect})`, () => {
    let world: Actors;
    const browsers: Record<string, Browser> = {};

    before(async () => {
      world = await startWithUsers(dialect, []);
      const hash = await hashPassword(PASSWORD);
      for (const name of ['alice', 'bob', 'carol', 'dave']) {
        const user = await world.fx.user(name, { passwordHash: hash });
        world.ids[name] = user.id;
        world.tokens[name] = await world.fx.token(user.id, ['api']);
      }
      const { fx, ids } = world;
      const rocket = await fx.project('acme/rocket', ids.alice!, 'public');
      const vault = await fx.project('acme/vault', ids.alice!, 'private');
      await fx.member(rocket.id, ids.alice!, 50);
      await fx.member(vault.id, ids.alice!, 50);
      await fx.member(vault.id, ids.bob!, 10); // guest
      await fx.member(vault.id, ids.dave!, 20); // reporter
      const a = world.tokens.alice!;
      // Pushes are recorded with a push token (scope write_repository), as the hook records them.
      const pusher = await fx.token(ids.alice!, ['write_repository']);
      const post = async (path: string, body: unknown) => {
        const res = await api(world.server, 'POST', path, a, body);
        assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
        return res.body as { id: number; iid: number };
      };
      const ms = await post('/projects/acme%2Frocket/milestones', {
        title: 'v1 <b>beta</b>',
        description: 'Ship it',
      });
      await post('/projects/acme%2Frocket/issues', {
        title: XSS_TITLE,
        description: XSS_BODY,
        milestone_id: ms.id,
      });
      await post('/projects/acme%2Frocket/issues/1/notes', { body: XSS_NOTE });
      await post('/projects/acme%2Frocket/issues/1/notes', { body: 'Second note' });
      await post('/projects/acme%2Frocket/issues', { title: 'Secret plan', confidential: true });
      await post('/projects/acme%2Frocket/merge_requests', {
        title: 'Faster <script>x</script>',
        source_branch: 'fast',
        target_branch: 'main',
        description: 'Makes it **fast**',
      });
      await post('/projects/acme%2Fvault/issues', { title: 'Vault issue' });
      await post('/projects/acme%2Fvault/merge_requests', {
        title: 'Vault MR',
        source_branch: 'a',
        target_branch: 'main',
      });
      await post('/projects/acme%2Fvault/milestones', { title: 'Vault milestone' });
      for (const project of ['acme%2Frocket', 'acme%2Fvault']) {
        const res = await api(world.server, 'POST', `/projects/${project}/pushes`, pusher, {
          changes: [
            {
              before: BEFORE,
              after: COMMIT,
              ref: 'refs/heads/main',
              total_commits_count: 1,
              commits: [
                {
                  id: COMMIT,
                  message: 'Fix <script>alert(5)</script> crash\n\nThe <b>long</b> story.',
                  timestamp: '2026-01-02T10:00:00+00:00',
                  author: { name: 'Alice <i>M</i>', email: 'alice@example.com' },
                },
              ],
            },
          ],
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
      for (const name of ['alice', 'bob', 'carol', 'dave']) {
        const browser = new Browser(world.server.url);
        assert.equal((await browser.signIn(name, PASSWORD)).status, 303);
        browsers[name] = browser;
      }
    });
    after(() => world.server.close());

    const page = (path: string, who?: string) =>
      who
        ? browsers[who]!.fetch(path, { headers: { accept: 'text/html' } })
        : new Browser(world.server.url).fetch(path, { headers: { accept: 'text/html' } });

    it('an issue: title, state, author, milestone, Markdown description, notes in order, its events', async () => {
      const res = await page('/acme/rocket/-/issues/1');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      const text = res.text;
      assert.match(
        text,
        /<h1>Crash &lt;img src=x onerror=alert\(1\)&gt; <span class="muted">#1<\/span><\/h1>/,
      );
      assert.match(text, /<span class="state state-opened">opened<\/span>/);
      assert.match(text, /opened <time[^>]*>[^<]*<\/time\s*> by <a class="author" href="\/alice"/);
      assert.match(
        text,
        /<a\s+href="\/acme\/rocket\/-\/milestones\/1"\s*>v1 &lt;b&gt;beta&lt;\/b&gt;<\/a/,
      );
      assert.match(text, /<p>&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/p>/);
      assert.match(text, /<strong>bold<\/strong> and <code>code<\/code>/);
      assert.match(
        text,
        /<a href="https:\/\/example.com\/docs" rel="nofollow noopener noreferrer">ok<\/a>/,
      );
      const first = text.indexOf('First &lt;img');
      const second = text.indexOf('Second note');
      assert.ok(first > 0 && second > first, 'notes oldest first');
      assert.match(text, /<li class="note" id="note_\d+">/);
      // The issue's own events: opened, and the two comments.
      assert.equal([...text.matchAll(/<li class="event" data-id="\d+">/g)].length, 3);
      for (const bad of [
        /<script>/i,
        /<img src=[xy]/i,
        /href="javascript:/i,
        /onerror=alert\(\d\)>/,
      ]) {
        assert.doesNotMatch(text.replace(/<script src="[^"]+" defer><\/script>/g, ''), bad);
      }
    });

    it('a merge request and a milestone: their titles escaped, states, branches, events', async () => {
      const mr = await page('/acme/rocket/-/merge_requests/1');
      assert.equal(mr.status, 200);
      assert.match(
        mr.text,
        /<h1>Faster &lt;script&gt;x&lt;\/script&gt; <span class="muted">!1<\/span><\/h1>/,
      );
      assert.match(mr.text, /<code>fast<\/code> → <code>main<\/code>/);
      assert.match(mr.text, /Makes it <strong>fast<\/strong>/);
      assert.equal([...mr.text.matchAll(/<li class="event" data-id="\d+">/g)].length, 1);
      const ms = await page('/acme/rocket/-/milestones/1');
      assert.equal(ms.status, 200);
      assert.match(ms.text, /<h1>v1 &lt;b&gt;beta&lt;\/b&gt; <span class="muted">%1<\/span><\/h1>/);
      assert.match(ms.text, /<span class="state state-active">active<\/span>/);
      assert.match(ms.text, /<p>Ship it<\/p>/);
    });

    it('the lists: state tabs, rows linking to each object, confidential issues only for those who may see them', async () => {
      const anonymous = await page('/acme/rocket/-/issues?state=all');
      assert.equal(anonymous.status, 200);
      assert.match(anonymous.text, /<a href="\/acme\/rocket\/-\/issues\/1"/);
      assert.doesNotMatch(anonymous.text, /Secret plan/);
      assert.match(
        anonymous.text,
        /href="\/acme\/rocket\/-\/issues\?state=all"\s+aria-current="page"/,
      );
      const owner = await page('/acme/rocket/-/issues', 'alice');
      assert.match(owner.text, /Secret plan/);
      const closed = await page('/acme/rocket/-/issues?state=closed');
      assert.match(closed.text, /No issues here\./);
      const mrs = await page('/acme/rocket/-/merge_requests');
      assert.match(mrs.text, /<a href="\/acme\/rocket\/-\/merge_requests\/1"/);
      const milestones = await page('/acme/rocket/-/milestones');
      assert.match(milestones.text, /<a href="\/acme\/rocket\/-\/milestones\/1"/);
      const project = await page('/acme/rocket');
      assert.match(project.text, /<a href="\/acme\/rocket\/-\/issues">Issues<\/a>/);
      // Activity rows link their references: #1, !1, and a milestone by its title.
      assert.match(
        project.text,
        /<a class="target-title reference" href="\/acme\/rocket\/-\/milestones\/1"\s*>«v1 &lt;b&gt;beta&lt;\/b&gt;»<\/a/,
      );
      assert.match(
        project.text,
        /<a class="reference" href="\/acme\/rocket\/-\/issues\/1#note_\d+"/,
      );
      assert.match(
        project.text,
        /<a class="reference" href="\/acme\/rocket\/-\/merge_requests\/1"/,
      );
    });

    it('a page is refused exactly where the API refuses the same viewer (private project, confidential issue, merge requests)', async () => {
      const cases: [string, string][] = [
        ['/acme/rocket/-/issues/2', '/projects/acme%2Frocket/issues/2'],
        ['/acme/vault/-/issues/1', '/projects/acme%2Fvault/issues/1'],
        ['/acme/vault/-/merge_requests/1', '/projects/acme%2Fvault/merge_requests/1'],
        ['/acme/vault/-/milestones/1', '/projects/acme%2Fvault/milestones?iids[]=1'],
        ['/acme/vault/-/issues', '/projects/acme%2Fvault/issues'],
        ['/acme/vault/-/merge_requests', '/projects/acme%2Fvault/merge_requests'],
        ['/acme/rocket/-/issues/99', '/projects/acme%2Frocket/issues/99'],
      ];
      let hidden = 0;
      for (const who of [undefined, 'alice', 'bob', 'carol', 'dave']) {
        for (const [path, rest] of cases) {
          const web = await page(path, who);
          const res = await api(world.server, 'GET', rest, who ? world.tokens[who] : undefined);
          // What the API hides is a 404 page; what it forbids a member (a guest's merge requests
          // in a private project) a 403 page, as the API answers.
          const expected =
            res.status === 403 ? 403 : res.status === 404 || res.status === 401 ? 404 : 200;
          assert.equal(
            web.status,
            expected,
            `${path} as ${who ?? 'anonymous'} (API ${res.status})`,
          );
          if (web.status >= 400) {
            hidden += 1;
            assert.doesNotMatch(web.text, /Vault|Secret plan/);
          }
        }
      }
      // Strangers and the anonymous never see the vault; a guest never sees a confidential issue.
      assert.equal((await page('/acme/vault/-/issues/1', 'carol')).status, 404);
      assert.equal((await page('/acme/vault/-/issues/1')).status, 404);
      assert.equal((await page('/acme/rocket/-/issues/2', 'carol')).status, 404);
      assert.equal((await page('/acme/rocket/-/issues/2', 'alice')).status, 200);
      assert.equal((await page('/acme/vault/-/issues/1', 'bob')).status, 200);
      assert.ok(hidden >= 12, `hidden ${hidden}`);
    });

    it('a commit, a compare range and a branch: what the pushes recorded, escaped, visible as the push events are', async () => {
      const commit = await page(`/acme/rocket/-/commit/${COMMIT}`);
      assert.equal(commit.status, 200);
      assert.match(commit.text, /<h1>Fix &lt;script&gt;alert\(5\)&lt;\/script&gt; crash<\/h1>/);
      assert.match(commit.text, /<pre class="message">The &lt;b&gt;long&lt;\/b&gt; story\.<\/pre>/);
      assert.match(commit.text, /authored by Alice &lt;i&gt;M&lt;\/i&gt;/);
      assert.equal([...commit.text.matchAll(/<li class="event" data-id="\d+">/g)].length, 1);
      assert.doesNotMatch(commit.text, /<script>alert/);
      const compare = await page(`/acme/rocket/-/compare/${BEFORE}...${COMMIT}`);
      assert.equal(compare.status, 200);
      assert.match(compare.text, new RegExp(`href="/acme/rocket/-/commit/${COMMIT}"`));
      const branch = await page('/acme/rocket/-/commits/main');
      assert.equal(branch.status, 200);
      assert.match(branch.text, new RegExp(`href="/acme/rocket/-/commit/${COMMIT}"`));
      // The activity row of the push links the commit to its page.
      const project = await page('/acme/rocket');
      assert.match(project.text, new RegExp(`<a href="/acme/rocket/-/commit/${COMMIT}"`));
      // In the private project: a page exactly for those to whom the API lists the push.
      for (const who of [undefined, 'alice', 'bob', 'carol', 'dave']) {
        const res = await api(
          world.server,
          'GET',
          '/projects/acme%2Fvault/events?action=pushed',
          who ? world.tokens[who] : undefined,
        );
        const listed = res.status === 200 && (res.body as unknown[]).length > 0;
        const web = await page(`/acme/vault/-/commit/${COMMIT}`, who);
        assert.equal(
          web.status,
          listed ? 200 : 404,
          `as ${who ?? 'anonymous'} (API ${res.status})`,
        );
      }
      assert.equal((await page(`/acme/vault/-/commit/${COMMIT}`, 'alice')).status, 200);
      assert.equal((await page(`/acme/vault/-/commit/${COMMIT}`, 'carol')).status, 404);
    });

    it('bad paths under /-/ are 404 pages, never 5xx', async () => {
      for (const path of [
        '/acme/rocket/-/issues/0',
        '/acme/rocket/-/issues/abc',
        '/acme/rocket/-/issues/99999999999999999999',
        '/acme/rocket/-/commit/xyz',
        '/acme/rocket/-/commit/' + 'a'.repeat(40),
        '/acme/rocket/-/compare/a...b',
        '/acme/rocket/-/nothing',
        '/acme/rocket/-/issues/1/more',
        '/acme/rocket/-/issues/1/',
        '/acme/-/issues/1',
        '/groups/nowhere',
      ]) {
        const res = await page(path);
        assert.equal(res.status, 404, path);
      }
      const compare = await page(`/acme/rocket/-/compare/${'a'.repeat(40)}...${'b'.repeat(40)}`);
      assert.equal(compare.status, 200);
      assert.match(
        compare.text,
        /pulsegate keeps the push data its hook reports, not the\s+repository/,
      );
    });

    it('a group page lists the projects the viewer can read', async () => {
      const anonymous = await page('/groups/acme');
      assert.equal(anonymous.status, 200);
      assert.match(anonymous.text, /href="\/acme\/rocket"/);
      assert.doesNotMatch(anonymous.text, /acme\/vault/);
      const member = await page('/groups/acme', 'bob');
      assert.match(member.text, /href="\/acme\/vault"/);
    });
  });
}
