import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACTIONS } from '../../src/domain/vocabulary.js';
import { DEMO_PASSWORD } from '../../src/data/demo-catalog.js';
import { SeedService, NotEmptyError } from '../../src/data/seed.js';
import { verifyPassword } from '../../src/domain/secrets.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { Fixtures } from '../helpers/fixtures.js';

const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`demo data set (${dialect})`, () => {
    let server: TestServer;
    let rootToken: string;

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          await new SeedService(store, { now: () => 0 }).seedDemo();
          const root = await store.users.byUsername('root');
          rootToken = await new Fixtures(store).token(root!.id, ['read_api']);
        },
      });
    });
    after(() => server.close());

    const db = () => server.store.db;

    it('has the documented users, projects and memberships', async () => {
      const users = await db().selectFrom('users').selectAll().orderBy('id').execute();
      assert.ok(users.length >= 5);
      assert.ok(users.some((u) => u.username === 'root' && u.admin === 1));
      assert.ok(users.some((u) => u.private_profile === 1));
      assert.ok(users.some((u) => u.state === 'blocked'));
      assert.ok(await verifyPassword(DEMO_PASSWORD, users[1]!.password_hash));
      const projects = await db().selectFrom('projects').selectAll().execute();
      assert.ok(projects.length >= 6);
      assert.deepEqual(new Set(projects.map((p) => p.visibility)), new Set(['public', 'internal', 'private']));
      assert.ok(projects.some((p) => p.full_path === 'acme/platform/api'));
      assert.ok(projects.some((p) => p.namespace === 'alice'), 'a user namespace');
      const levels = await db().selectFrom('project_members').select('access_level').distinct().execute();
      assert.deepEqual(new Set(levels.map((l) => l.access_level)), new Set([10, 20, 30, 40, 50]));
    });

    it('covers every action and target type with 2,000+ events over ~90 days', async () => {
      const events = await db().selectFrom('events').select(['action', 'target_type', 'created_at']).execute();
      assert.ok(events.length >= 2000, `${events.length} events`);
      assert.deepEqual(
        [...new Set(events.map((e) => e.action))].sort((a, b) => a - b),
        ACTIONS.map((_, i) => i + 1),
      );
      const types = new Set(events.map((e) => e.target_type));
      for (const t of ['Issue', 'MergeRequest', 'Milestone', 'Note', 'Project', 'Snippet', 'User', null]) {
        assert.ok(types.has(t), `target type ${t}`);
      }
      const times = events.map((e) => e.created_at);
      const span = (Math.max(...times) - Math.min(...times)) / DAY;
      assert.ok(span > 80 && span <= 91, `span ${span} days`);
    });

    it('has pushes of every kind, notes on issues, MRs and snippets, and milestones and snippets', async () => {
      const pushes = await db().selectFrom('push_event_payloads').selectAll().execute();
      const kinds = new Set(pushes.map((p) => `${p.ref_type}:${p.action}`));
      for (const k of ['branch:pushed', 'branch:created', 'branch:removed', 'tag:created']) assert.ok(kinds.has(k), k);
      assert.ok(pushes.some((p) => p.commit_count > 20 && JSON.parse(p.commits).length === 20));
      assert.ok(pushes.some((p) => p.commit_count > 1 && p.commit_count <= 20));
      const noteables = await db().selectFrom('notes').select('noteable_type').distinct().execute();
      assert.deepEqual(new Set(noteables.map((n) => n.noteable_type)), new Set(['Issue', 'MergeRequest', 'Snippet']));
      assert.ok((await db().selectFrom('milestones').select('id').execute()).length > 0);
      assert.ok((await db().selectFrom('snippets').select('id').execute()).length > 0);
    });

    it('has stars and follows, each star on a project its user can read', async () => {
      const res = await fetch(`${server.url}/api/v4/users/2/starred_projects`, {
        headers: { 'PRIVATE-TOKEN': rootToken },
      });
      // alice (id 2) starred four projects; root, an administrator, sees them all.
      assert.equal(res.headers.get('x-total'), '4');
      const stars = await db()
        .selectFrom('project_stars as s')
        .innerJoin('projects as p', 'p.id', 's.project_id')
        .select(['s.user_id', 'p.id', 'p.visibility'])
        .execute();
      assert.ok(stars.length >= 10, `${stars.length} stars`);
      for (const star of stars.filter((s) => s.visibility === 'private')) {
        const member = await db()
          .selectFrom('project_members')
          .select('user_id')
          .where('project_id', '=', star.id)
          .where('user_id', '=', star.user_id)
          .executeTakeFirst();
        assert.ok(member, `user ${star.user_id} starred private project ${star.id} without access`);
      }
      const follows = await db().selectFrom('user_follows').selectAll().execute();
      assert.ok(follows.length >= 8, `${follows.length} follows`);
      const alice = follows.filter((f) => f.follower_id === 2).map((f) => f.followee_id);
      assert.ok(alice.length >= 3, 'alice follows several users');
    });

    it('has a confidential issue with notes that only members and admins see', async () => {
      const issue = await db().selectFrom('issues').selectAll().where('confidential', '=', 1).executeTakeFirstOrThrow();
      const notes = await db().selectFrom('notes').select('id').where('noteable_type', '=', 'Issue').where('noteable_id', '=', issue.id).execute();
      assert.ok(notes.length >= 2);
      const hidden = await db().selectFrom('events').select('id').where('issue_id', '=', issue.id).execute();
      assert.equal(hidden.length, notes.length + 1, 'creation and every note event carry issue_id');
      const day = (offset: number) => new Date(issue.created_at + offset * DAY).toISOString().slice(0, 10);
      const [dayBefore, dayAfter] = [day(-1), day(1)];
      const titles = async (headers: Record<string, string>) => {
        const res = await fetch(`${server.url}/api/v4/projects/${issue.project_id}/events?target_type=issue&per_page=100&after=${dayBefore}&before=${dayAfter}`, { headers });
        assert.equal(res.status, 200);
        const body = (await res.json()) as { target_title: string | null }[];
        return body.map((e) => e.target_title);
      };
      assert.ok(!(await titles({})).includes(issue.title), 'anonymous callers do not see it');
      assert.ok((await titles({ 'PRIVATE-TOKEN': rootToken })).includes(issue.title), 'admins do');
    });

    it('records who closed, merged and approved what, and when, as the events say', async () => {
      const code = (action: (typeof ACTIONS)[number]) => ACTIONS.indexOf(action) + 1;
      // The newest event of an action on each target: the state the target was left in.
      const latest = async (targetType: string, action: (typeof ACTIONS)[number]) => {
        const rows = await db()
          .selectFrom('events')
          .select(['target_id', 'author_id', 'created_at'])
          .where('target_type', '=', targetType)
          .where('action', '=', code(action))
          .orderBy('id')
          .execute();
        return new Map(rows.map((r) => [r.target_id!, r]));
      };
      const issues = await db().selectFrom('issues').selectAll().execute();
      const closes = await latest('Issue', 'closed');
      const closed = issues.filter((i) => i.state === 'closed');
      assert.ok(closed.length >= 30, `${closed.length} closed issues`);
      for (const issue of closed) {
        const event = closes.get(issue.id);
        assert.ok(event, `issue ${issue.id} has a closed event`);
        assert.equal(Number(issue.closed_at), Number(event.created_at), `issue ${issue.id}`);
        assert.equal(issue.closed_by_id, event.author_id, `issue ${issue.id}`);
      }
      for (const issue of issues.filter((i) => i.state === 'opened')) {
        assert.deepEqual([issue.closed_at, issue.closed_by_id], [null, null], `issue ${issue.id}`);
      }

      const mrs = await db().selectFrom('merge_requests').selectAll().execute();
      const merges = await latest('MergeRequest', 'merged');
      const merged = mrs.filter((m) => m.state === 'merged');
      assert.ok(merged.length >= 30, `${merged.length} merged merge requests`);
      for (const mr of merged) {
        const event = merges.get(mr.id);
        assert.ok(event, `merge request ${mr.id} has a merged event`);
        assert.equal(Number(mr.merged_at), Number(event.created_at), `merge request ${mr.id}`);
        assert.equal(mr.merged_by_id, event.author_id, `merge request ${mr.id}`);
      }
      const mrCloses = await latest('MergeRequest', 'closed');
      for (const mr of mrs.filter((m) => m.state === 'closed')) {
        assert.equal(Number(mr.closed_at), Number(mrCloses.get(mr.id)?.created_at), `mr ${mr.id}`);
        assert.equal(mr.closed_by_id, mrCloses.get(mr.id)?.author_id, `mr ${mr.id}`);
      }
      for (const mr of mrs.filter((m) => m.state === 'opened')) {
        assert.deepEqual([mr.merged_at, mr.closed_at], [null, null], `mr ${mr.id}`);
      }

      // Every approval event is one member's approval, recorded once.
      const approvals = await db().selectFrom('merge_request_approvals').selectAll().execute();
      const approved = await db()
        .selectFrom('events')
        .select(['target_id', 'author_id'])
        .where('action', '=', code('approved'))
        .execute();
      assert.ok(approvals.length > 0);
      assert.deepEqual(
        approved.map((e) => `${e.target_id}:${e.author_id}`).sort(),
        approvals.map((a) => `${a.merge_request_id}:${a.user_id}`).sort(),
      );

      // A milestone is closed at most once and never after it was destroyed.
      const milestoneEvents = await db()
        .selectFrom('events')
        .select(['target_id', 'action'])
        .where('target_type', '=', 'Milestone')
        .where('action', 'in', [code('closed'), code('destroyed')])
        .orderBy('id')
        .execute();
      const seen = new Set<string>();
      for (const e of milestoneEvents) {
        assert.ok(!seen.has(`${e.target_id}:${code('destroyed')}`), `milestone ${e.target_id}`);
        assert.ok(!seen.has(`${e.target_id}:${e.action}`), `milestone ${e.target_id} twice`);
        seen.add(`${e.target_id}:${e.action}`);
      }

      // The API shows it as GitLab would.
      const res = await fetch(`${server.url}/api/v4/projects/1/issues?state=closed&per_page=1`);
      assert.equal(res.status, 200);
      const [shown] = (await res.json()) as {
        closed_at: string | null;
        closed_by: { username: string } | null;
      }[];
      assert.match(shown!.closed_at ?? '', /^2025-|^2026-/);
      assert.ok(shown!.closed_by?.username, JSON.stringify(shown));
      const mrRes = await fetch(`${server.url}/api/v4/projects/1/merge_requests?state=merged&per_page=1`);
      assert.equal(mrRes.status, 200);
      const [mr] = (await mrRes.json()) as {
        merged_at: string | null;
        merged_by: { username: string } | null;
      }[];
      assert.match(mr!.merged_at ?? '', /^2025-|^2026-/);
      assert.ok(mr!.merged_by?.username, JSON.stringify(mr));
    });

    it('refuses to load into a database that is not empty', async () => {
      await assert.rejects(new SeedService(server.store, server.clock).seedDemo(), NotEmptyError);
    });
  });
}
