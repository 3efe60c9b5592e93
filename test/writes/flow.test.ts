/**
 * The life of a project through GitLab's REST writes, and the events each write leaves, on both
 * dialects: create a project, add a member, open, comment, close and reopen an issue, open,
 * approve and merge a merge request, run a milestone through its states.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import { type Actors, api, startWithUsers, story } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`REST writes make GitLab's events (${dialect})`, () => {
    let a: Actors;
    let projectId: number;
    before(async () => {
      a = await startWithUsers(dialect);
    });
    after(() => a.server.close());

    it('creates a project in the caller namespace, owned by them', async () => {
      const res = await api(a.server, 'POST', '/projects', a.tokens.alice, {
        name: 'Rocket Launcher',
        description: 'Goes up',
        visibility: 'public',
      });
      assert.equal(res.status, 201);
      const project = res.body as Record<string, unknown>;
      projectId = project.id as number;
      assert.equal(project.path, 'rocket-launcher');
      assert.equal(project.path_with_namespace, 'alice/rocket-launcher');
      assert.equal(project.name_with_namespace, 'alice / Rocket Launcher');
      assert.equal(project.visibility, 'public');
      assert.equal(project.web_url, `${a.server.url}/alice/rocket-launcher`);
      assert.deepEqual(project.permissions, {
        project_access: { access_level: 50, notification_level: 3 },
        group_access: null,
      });
      const again = await api(a.server, 'POST', '/projects', a.tokens.alice, {
        path: 'rocket-launcher',
      });
      assert.equal(again.status, 400);
      assert.deepEqual(again.body, {
        message: { name: ['has already been taken'], path: ['has already been taken'] },
      });
      const members = await api(a.server, 'GET', `/projects/${projectId}/members`, a.tokens.alice);
      assert.deepEqual(
        (members.body as { username: string; access_level: number }[]).map((m) => [
          m.username,
          m.access_level,
        ]),
        [['alice', 50]],
      );
    });

    it('adds and removes members with "joined"/"left" events authored by the member', async () => {
      const add = await api(a.server, 'POST', `/projects/${projectId}/members`, a.tokens.alice, {
        user_id: a.ids.bob,
        access_level: 30,
      });
      assert.equal(add.status, 201);
      const member = add.body as Record<string, unknown>;
      assert.equal(member.username, 'bob');
      assert.equal(member.access_level, 30);
      assert.equal(member.expires_at, null);
      assert.equal((member.created_by as { username: string }).username, 'alice');

      const dup = await api(a.server, 'POST', `/projects/${projectId}/members`, a.tokens.alice, {
        user_id: a.ids.bob,
        access_level: 30,
      });
      assert.equal(dup.status, 409);
      assert.deepEqual(dup.body, { message: 'Member already exists' });

      const carol = await api(a.server, 'POST', `/projects/${projectId}/members`, a.tokens.alice, {
        user_id: a.ids.carol,
        access_level: '10',
      });
      assert.equal(carol.status, 201);
      // Developers cannot manage members.
      const byBob = await api(a.server, 'POST', `/projects/${projectId}/members`, a.tokens.bob, {
        user_id: a.ids.dave,
        access_level: 10,
      });
      assert.equal(byBob.status, 403);
      assert.deepEqual(byBob.body, { message: '403 Forbidden' });
      const gone = await api(
        a.server,
        'DELETE',
        `/projects/${projectId}/members/${a.ids.carol}`,
        a.tokens.alice,
      );
      assert.equal(gone.status, 204);
      assert.equal(gone.text, '');
      const again = await api(
        a.server,
        'DELETE',
        `/projects/${projectId}/members/${a.ids.carol}`,
        a.tokens.alice,
      );
      assert.equal(again.status, 404);
      assert.deepEqual(again.body, { message: '404 Member Not Found' });
    });

    it('opens, comments on, closes and reopens an issue', async () => {
      const open = await api(a.server, 'POST', `/projects/${projectId}/issues`, a.tokens.bob, {
        title: 'Engine stalls',
        description: 'At T-3',
      });
      assert.equal(open.status, 201);
      const issue = open.body as Record<string, unknown>;
      assert.equal(issue.iid, 1);
      assert.equal(issue.state, 'opened');
      assert.equal(issue.description, 'At T-3');
      assert.equal((issue.author as { username: string }).username, 'bob');
      assert.equal(issue.web_url, `${a.server.url}/alice/rocket-launcher/-/issues/1`);
      assert.deepEqual(issue.references, {
        short: '#1',
        relative: '#1',
        full: 'alice/rocket-launcher#1',
      });

      const note = await api(
        a.server,
        'POST',
        `/projects/${projectId}/issues/1/notes`,
        a.tokens.alice,
        {
          body: 'Looking into it',
        },
      );
      assert.equal(note.status, 201);
      const n = note.body as Record<string, unknown>;
      assert.equal(n.body, 'Looking into it');
      assert.equal(n.noteable_type, 'Issue');
      assert.equal(n.noteable_iid, 1);
      assert.equal(n.noteable_id, issue.id);

      const close = await api(a.server, 'PUT', `/projects/${projectId}/issues/1`, a.tokens.alice, {
        state_event: 'close',
      });
      assert.equal(close.status, 200);
      const closed = close.body as Record<string, unknown>;
      assert.equal(closed.state, 'closed');
      assert.equal((closed.closed_by as { username: string }).username, 'alice');
      assert.equal(closed.user_notes_count, 1);
      // Closing a closed issue changes nothing and writes no event.
      const twice = await api(a.server, 'PUT', `/projects/${projectId}/issues/1`, a.tokens.alice, {
        state_event: 'close',
      });
      assert.equal(twice.status, 200);
      // An edit writes no event either.
      const edit = await api(a.server, 'PUT', `/projects/${projectId}/issues/1`, a.tokens.bob, {
        title: 'Engine stalls at T-3',
      });
      assert.equal(edit.status, 200);
      assert.equal((edit.body as { title: string }).title, 'Engine stalls at T-3');
      const reopen = await api(a.server, 'PUT', `/projects/${projectId}/issues/1`, a.tokens.bob, {
        state_event: 'reopen',
      });
      assert.equal(reopen.status, 200);
      assert.equal((reopen.body as { state: string }).state, 'opened');
      assert.equal((reopen.body as { closed_at: null }).closed_at, null);

      const list = await api(
        a.server,
        'GET',
        `/projects/${projectId}/issues?state=opened`,
        a.tokens.bob,
      );
      assert.equal(list.status, 200);
      assert.equal(list.headers.get('x-total'), '1');
      assert.deepEqual(
        (list.body as { iid: number }[]).map((i) => i.iid),
        [1],
      );
      const notes = await api(a.server, 'GET', `/projects/${projectId}/issues/1/notes`, undefined);
      assert.equal(notes.status, 200);
      assert.deepEqual(
        (notes.body as { body: string }[]).map((x) => x.body),
        ['Looking into it'],
      );
    });

    it('opens, approves and merges a merge request; merging twice is 405', async () => {
      const open = await api(
        a.server,
        'POST',
        `/projects/${projectId}/merge_requests`,
        a.tokens.bob,
        {
          source_branch: 'fix-engine',
          target_branch: 'main',
          title: 'Fix the engine',
        },
      );
      assert.equal(open.status, 201);
      const mr = open.body as Record<string, unknown>;
      assert.equal(mr.iid, 1);
      assert.equal(mr.state, 'opened');
      assert.equal(mr.source_branch, 'fix-engine');
      assert.equal(mr.reference, '!1');
      const dup = await api(
        a.server,
        'POST',
        `/projects/${projectId}/merge_requests`,
        a.tokens.bob,
        {
          source_branch: 'fix-engine',
          target_branch: 'main',
          title: 'Again',
        },
      );
      assert.equal(dup.status, 409);

      const approve = await api(
        a.server,
        'POST',
        `/projects/${projectId}/merge_requests/1/approve`,
        a.tokens.alice,
      );
      assert.equal(approve.status, 201);
      const state = approve.body as Record<string, unknown>;
      assert.equal(state.approved, true);
      assert.equal(state.user_has_approved, true);
      assert.deepEqual(
        (state.approved_by as { user: { username: string } }[]).map((x) => x.user.username),
        ['alice'],
      );
      const twice = await api(
        a.server,
        'POST',
        `/projects/${projectId}/merge_requests/1/approve`,
        a.tokens.alice,
      );
      assert.equal(twice.status, 401);

      const merge = await api(
        a.server,
        'PUT',
        `/projects/${projectId}/merge_requests/1/merge`,
        a.tokens.alice,
      );
      assert.equal(merge.status, 200);
      const merged = merge.body as Record<string, unknown>;
      assert.equal(merged.state, 'merged');
      assert.equal((merged.merged_by as { username: string }).username, 'alice');
      assert.equal(typeof merged.merged_at, 'string');
      const again = await api(
        a.server,
        'PUT',
        `/projects/${projectId}/merge_requests/1/merge`,
        a.tokens.alice,
      );
      assert.equal(again.status, 405);
      assert.deepEqual(again.body, { message: '405 Method Not Allowed' });
    });

    it('runs a milestone through created, closed, reopened and destroyed', async () => {
      const create = await api(
        a.server,
        'POST',
        `/projects/${projectId}/milestones`,
        a.tokens.alice,
        {
          title: 'v1.0',
          due_date: '2026-03-01',
        },
      );
      assert.equal(create.status, 201);
      const m = create.body as Record<string, unknown>;
      assert.equal(m.iid, 1);
      assert.equal(m.state, 'active');
      assert.equal(m.due_date, '2026-03-01');
      assert.equal(m.expired, false);
      const id = m.id as number;
      const close = await api(
        a.server,
        'PUT',
        `/projects/${projectId}/milestones/${id}`,
        a.tokens.alice,
        {
          state_event: 'close',
        },
      );
      assert.equal((close.body as { state: string }).state, 'closed');
      const activate = await api(
        a.server,
        'PUT',
        `/projects/${projectId}/milestones/${id}`,
        a.tokens.alice,
        {
          state_event: 'activate',
        },
      );
      assert.equal((activate.body as { state: string }).state, 'active');
      const del = await api(
        a.server,
        'DELETE',
        `/projects/${projectId}/milestones/${id}`,
        a.tokens.alice,
      );
      assert.equal(del.status, 204);
      const get = await api(
        a.server,
        'GET',
        `/projects/${projectId}/milestones/${id}`,
        a.tokens.alice,
      );
      assert.equal(get.status, 404);
      assert.deepEqual(get.body, { message: '404 Milestone Not Found' });
    });

    it('lists exactly the events GitLab would, in order, in every listing', async () => {
      const res = await api(
        a.server,
        'GET',
        `/projects/${projectId}/events?per_page=100`,
        a.tokens.alice,
      );
      assert.equal(res.status, 200);
      assert.deepEqual(story(res.body), [
        'alice created -',
        'bob joined -',
        'carol joined -',
        'carol left -',
        'bob opened Issue Engine stalls at T-3',
        // GitLab: a note event's target_title is null (notes have no title).
        'alice commented on Note',
        'alice closed Issue Engine stalls at T-3',
        'bob opened Issue Engine stalls at T-3',
        'bob opened MergeRequest Fix the engine',
        'alice approved MergeRequest Fix the engine',
        'alice accepted MergeRequest Fix the engine',
        // The milestone is gone: its events keep their type but no longer resolve a title.
        'alice opened Milestone',
        'alice closed Milestone',
        'alice opened Milestone',
        'alice destroyed Milestone',
      ]);
      const bobs = await api(a.server, 'GET', `/users/bob/events?per_page=100`, a.tokens.alice);
      assert.deepEqual(story(bobs.body), [
        'bob joined -',
        'bob opened Issue Engine stalls at T-3',
        'bob opened Issue Engine stalls at T-3',
        'bob opened MergeRequest Fix the engine',
      ]);
      const mine = await api(
        a.server,
        'GET',
        `/events?per_page=100&target_type=merge_request`,
        a.tokens.alice,
      );
      assert.deepEqual(story(mine.body), [
        'alice approved MergeRequest Fix the engine',
        'alice accepted MergeRequest Fix the engine',
      ]);
    });
  });
}
