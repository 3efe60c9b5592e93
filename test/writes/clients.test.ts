/**
 * Real GitLab clients, unchanged, make a project's life through pulsegate: @gitbeaker/rest and
 * python-gitlab (Debian's python3-gitlab, which .ci/run installs) create a project, add a member,
 * open, comment on, close and reopen an issue, open, approve and merge a merge request; the three
 * event listings then show exactly GitLab's events, in order.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { runPythonGitlab } from '../helpers/python-gitlab.js';
import { DIALECTS } from '../helpers/server.js';
import { type Actors, api, startWithUsers, story } from './helpers.js';

const SCRIPT = fileURLToPath(new URL('./clients/python_gitlab_flow.py', import.meta.url));

/** GitLab's project listing for the whole flow (the same whichever client drove it). */
const PROJECT_STORY = [
  'alice created -',
  'bob joined -',
  'bob opened Issue Printer on fire',
  'bob commented on Note',
  'bob closed Issue Printer on fire',
  'bob opened Issue Printer on fire',
  'bob opened MergeRequest Put out the fire',
  'alice approved MergeRequest Put out the fire',
  'alice accepted MergeRequest Put out the fire',
];

for (const dialect of DIALECTS) {
  describe(`GitLab clients write through pulsegate (${dialect})`, () => {
    let a: Actors;
    before(async () => {
      a = await startWithUsers(dialect, ['alice', 'bob']);
    });
    after(() => a.server.close());

    it('@gitbeaker/rest: the whole flow, and the events in all three listings', async () => {
      const alice = new Gitlab({ host: a.server.url, token: a.tokens.alice! });
      const bob = new Gitlab({ host: a.server.url, token: a.tokens.bob! });
      const project = await alice.Projects.create({ name: 'Beaker', visibility: 'public' });
      assert.equal(project.path_with_namespace, 'alice/beaker');
      const member = await alice.ProjectMembers.add(project.id, 30, { userId: a.ids.bob! });
      assert.equal(member.username, 'bob');
      const issue = await bob.Issues.create(project.id, 'Printer on fire', {
        description: 'Smoke',
      });
      assert.equal(issue.iid, 1);
      const note = await bob.IssueNotes.create(project.id, issue.iid, 'Extinguisher on its way');
      assert.equal(note.body, 'Extinguisher on its way');
      const closed = await bob.Issues.edit(project.id, issue.iid, { stateEvent: 'close' });
      assert.equal(closed.state, 'closed');
      const reopened = await bob.Issues.edit(project.id, issue.iid, { stateEvent: 'reopen' });
      assert.equal(reopened.state, 'opened');
      const mr = await bob.MergeRequests.create(project.id, 'fire-fix', 'main', 'Put out the fire');
      const approval = await alice.MergeRequestApprovals.approve(project.id, mr.iid);
      assert.equal(approval.user_has_approved, true);
      const merged = await alice.MergeRequests.accept(project.id, mr.iid);
      assert.equal(merged.state, 'merged');
      const listed = await bob.Issues.all({ projectId: project.id, state: 'opened' });
      assert.deepEqual(
        listed.map((i) => i.iid),
        [1],
      );

      const events = await api(
        a.server,
        'GET',
        `/projects/${project.id}/events?per_page=100`,
        a.tokens.alice,
      );
      assert.deepEqual(story(events.body), PROJECT_STORY);
      const bobs = await api(
        a.server,
        'GET',
        `/users/${a.ids.bob}/events?per_page=100`,
        a.tokens.alice,
      );
      assert.deepEqual(
        story(bobs.body),
        PROJECT_STORY.filter((line) => line.startsWith('bob ')),
      );
      const own = await api(a.server, 'GET', '/events?per_page=100', a.tokens.alice);
      assert.deepEqual(
        story(own.body),
        PROJECT_STORY.filter((line) => line.startsWith('alice ')),
      );
    });

    it('python-gitlab: the whole flow, as a Python user writes it', async (t) => {
      const stdout = await runPythonGitlab(t, SCRIPT, [
        a.server.url,
        a.tokens.alice!,
        a.tokens.bob!,
        String(a.ids.bob),
        'Snake',
      ]);
      if (stdout === null) return;
      const seen = JSON.parse(stdout) as Record<string, unknown>;
      assert.deepEqual((seen.project as unknown[])[1], 'alice/snake');
      assert.deepEqual(seen.issue, [1, 'opened', 'closed']);
      assert.deepEqual(seen.mr, [1, 'merged', 'alice']);
      assert.deepEqual(seen.notes, ['Extinguisher on its way']);
      assert.deepEqual(seen.blank_title, [400, { title: ["can't be blank"] }]);
      assert.deepEqual(
        (seen.events as string[][]).map(([who, what, type]) => `${who} ${what} ${type ?? '-'}`),
        PROJECT_STORY.map((line) => line.replace(/ (Printer on fire|Put out the fire)$/, '')),
      );
    });
  });
}
