/**
 * Path parameters win, as in GitLab: every REST route with a path parameter is called on project
 * A (and its objects) while the query and the body name project B (or another object of A) under
 * the path parameters' own names, in JSON and in form bodies. The answer, and what changed, is
 * always the path's object; the other one is untouched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import { call } from '../helpers/http.js';
import { type Actors, api, startWithUsers } from './helpers.js';

type Json = Record<string, unknown>;

for (const dialect of DIALECTS) {
  describe(`path parameters win over the query and the body (${dialect})`, () => {
    let a: Actors;
    let A: number;
    let B: number;
    /** Milestone ids: two in A, one in B. */
    const m: Record<string, number> = {};
    let hookA: number;
    let hookB: number;

    const as = (method: string, path: string, body?: unknown) =>
      api(a.server, method, path, a.tokens.alice, body);
    async function ok(method: string, path: string, body: unknown, status: number): Promise<Json> {
      const r = await as(method, path, body);
      assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
      return r.body as Json;
    }

    before(async () => {
      a = await startWithUsers(dialect, ['alice', 'bob', 'carol']);
      const make = async (path: string) =>
        (await ok('POST', '/projects', { path, visibility: 'public' }, 201)).id as number;
      A = await make('a');
      B = await make('b');
      for (const [p, n] of [
        [A, 2],
        [B, 2],
      ] as const) {
        for (let i = 1; i <= n; i++) {
          await ok('POST', `/projects/${p}/issues`, { title: `issue ${i}` }, 201);
          await ok(
            'POST',
            `/projects/${p}/merge_requests`,
            { source_branch: `f${i}`, target_branch: 'main', title: `mr ${i}` },
            201,
          );
        }
        await ok('POST', `/projects/${p}/members`, { user_id: a.ids.bob, access_level: 30 }, 201);
      }
      m.a1 = (await ok('POST', `/projects/${A}/milestones`, { title: 'a1' }, 201)).id as number;
      m.a2 = (await ok('POST', `/projects/${A}/milestones`, { title: 'a2' }, 201)).id as number;
      m.b1 = (await ok('POST', `/projects/${B}/milestones`, { title: 'b1' }, 201)).id as number;
      const hook = { url: 'https://hooks.example.com/x' };
      hookA = (await ok('POST', `/projects/${A}/hooks`, hook, 201)).id as number;
      hookB = (await ok('POST', `/projects/${B}/hooks`, hook, 201)).id as number;
    });
    after(() => a.server.close());

    /**
     * Project B and the second object of A, under the path parameters' names (`milestone_id` only
     * where it names the path's milestone: elsewhere it is an attribute).
     */
    const decoys = (milestone = false): Json => ({
      id: B,
      issue_iid: 2,
      merge_request_iid: 2,
      ...(milestone ? { milestone_id: m.b1 } : {}),
      user_id: a.ids.bob,
      hook_id: hookB,
    });
    const query = (milestone = false) =>
      `?${new URLSearchParams(Object.entries(decoys(milestone)).map(([k, v]): [string, string] => [k, String(v)]))}`;

    it('writes act on the path: JSON bodies and the query name others', async () => {
      const issue = await ok(
        'POST',
        `/projects/${A}/issues${query()}`,
        { ...decoys(), title: 'n' },
        201,
      );
      assert.deepEqual([issue.project_id, issue.iid], [A, 3]);

      const edited = await ok(
        'PUT',
        `/projects/${A}/issues/1${query()}`,
        { ...decoys(), title: 'edited' },
        200,
      );
      assert.deepEqual([edited.project_id, edited.iid, edited.title], [A, 1, 'edited']);
      const other = await ok('GET', `/projects/${A}/issues/2`, undefined, 200);
      assert.equal(other.title, 'issue 2');

      for (const [segment, key] of [
        ['issues', 'issue_iid'],
        ['merge_requests', 'merge_request_iid'],
      ] as const) {
        const note = await ok(
          'POST',
          `/projects/${A}/${segment}/1/notes${query()}`,
          { ...decoys(), body: `on ${segment}` },
          201,
        );
        assert.deepEqual([note.project_id, note.noteable_iid], [A, 1], key);
      }

      const mr = await ok(
        'POST',
        `/projects/${A}/merge_requests${query()}`,
        { ...decoys(), source_branch: 'f3', target_branch: 'main', title: 'n' },
        201,
      );
      assert.deepEqual([mr.project_id, mr.iid], [A, 3]);
      const mrEdited = await ok(
        'PUT',
        `/projects/${A}/merge_requests/1${query()}`,
        { ...decoys(), title: 'mr edited' },
        200,
      );
      assert.deepEqual([mrEdited.project_id, mrEdited.iid, mrEdited.title], [A, 1, 'mr edited']);
      const approved = await ok(
        'POST',
        `/projects/${A}/merge_requests/1/approve${query()}`,
        decoys(),
        201,
      );
      assert.deepEqual([approved.project_id, approved.iid], [A, 1]);
      const merged = await ok(
        'PUT',
        `/projects/${A}/merge_requests/1/merge${query()}`,
        decoys(),
        200,
      );
      assert.deepEqual([merged.project_id, merged.iid, merged.state], [A, 1, 'merged']);
      for (const [p, iid] of [
        [A, 2],
        [B, 2],
        [B, 1],
      ] as const) {
        const untouched = await ok('GET', `/projects/${p}/merge_requests/${iid}`, undefined, 200);
        assert.equal(untouched.state, 'opened', `${p}!${iid}`);
      }

      const milestone = await ok(
        'POST',
        `/projects/${A}/milestones${query(true)}`,
        { ...decoys(true), title: 'a3' },
        201,
      );
      assert.equal(milestone.project_id, A);
      const mEdited = await ok(
        'PUT',
        `/projects/${A}/milestones/${m.a1}${query(true)}`,
        { ...decoys(true), title: 'a1 edited' },
        200,
      );
      assert.deepEqual([mEdited.id, mEdited.title], [m.a1, 'a1 edited']);
      await ok('DELETE', `/projects/${A}/milestones/${m.a2}${query(true)}`, decoys(true), 204);
      await ok('GET', `/projects/${A}/milestones/${m.a2}`, undefined, 404);
      assert.equal(
        (await ok('GET', `/projects/${B}/milestones/${m.b1}`, undefined, 200)).title,
        'b1',
      );

      await ok(
        'POST',
        `/projects/${A}/members${query()}`,
        { ...decoys(), user_id: a.ids.carol, access_level: 20 },
        201,
      );
      await ok('GET', `/projects/${A}/members/${a.ids.carol}`, undefined, 200);
      await ok('GET', `/projects/${B}/members/${a.ids.carol}`, undefined, 404);
      await ok('DELETE', `/projects/${A}/members/${a.ids.carol}${query()}`, decoys(), 204);
      await ok('GET', `/projects/${A}/members/${a.ids.carol}`, undefined, 404);
      await ok('GET', `/projects/${A}/members/${a.ids.bob}`, undefined, 200);
      await ok('GET', `/projects/${B}/members/${a.ids.bob}`, undefined, 200);

      const hook = await ok(
        'POST',
        `/projects/${A}/hooks${query()}`,
        { ...decoys(), url: 'https://hooks.example.com/y' },
        201,
      );
      assert.equal(hook.project_id, A);
      const hookEdited = await ok(
        'PUT',
        `/projects/${A}/hooks/${hookA}${query()}`,
        { ...decoys(), url: 'https://hooks.example.com/z' },
        200,
      );
      assert.deepEqual([hookEdited.id, hookEdited.url], [hookA, 'https://hooks.example.com/z']);
      const hookB1 = await ok('GET', `/projects/${B}/hooks/${hookB}`, undefined, 200);
      assert.equal(hookB1.url, 'https://hooks.example.com/x');

      const hookPath = `/projects/${A}/hooks/${hookA}`;
      const hookDecoys = { ...decoys(), trigger: 'push_events', hook_event_id: 1, event_id: 1 };
      await ok('POST', `${hookPath}/test/issues_events${query()}`, hookDecoys, 201);
      const deliveries = await as('GET', `${hookPath}/events${query()}`);
      assert.equal(deliveries.status, 200, deliveries.text);
      const [delivery] = deliveries.body as Json[];
      assert.equal((deliveries.body as Json[]).length, 1);
      await ok(
        'POST',
        `${hookPath}/events/${delivery!.id as number}/resend${query()}`,
        hookDecoys,
        201,
      );
      assert.equal(
        ((await ok('GET', `${hookPath}/events`, undefined, 200)) as unknown as Json[]).length,
        2,
      );
      assert.deepEqual(
        (await ok('GET', `/projects/${B}/hooks/${hookB}/events`, undefined, 200)) as unknown,
        [],
      );

      const pushToken = await a.fx.token(a.ids.alice!, ['write_repository']);
      const sha = 'a'.repeat(40);
      const push = await api(a.server, 'POST', `/projects/${A}/pushes${query()}`, pushToken, {
        ...decoys(),
        changes: [
          {
            before: '0'.repeat(40),
            after: sha,
            ref: 'refs/tags/v1',
            commits: [],
            total_commits_count: 0,
          },
        ],
      });
      assert.equal(push.status, 201, push.text);
      assert.equal((push.body as Json).project_id, A);
    });

    it('form bodies name others too', async () => {
      const form = new URLSearchParams(
        Object.entries({ ...decoys(), title: 'by form' }).map(([k, v]): [string, string] => [
          k,
          String(v),
        ]),
      );
      form.append('id[]', String(B));
      const r = await call(a.server.url, `/api/v4/projects/${A}/issues/2`, {
        method: 'PUT',
        headers: {
          'private-token': a.tokens.alice!,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: form.toString(),
      });
      assert.equal(r.status, 200, r.text);
      const body = r.body as Json;
      assert.deepEqual([body.project_id, body.iid, body.title], [A, 2, 'by form']);
      assert.equal((await ok('GET', `/projects/${B}/issues/2`, undefined, 200)).title, 'issue 2');
    });

    it('reads answer for the path whatever the query says', async () => {
      const q = query(true);
      assert.equal((await ok('GET', `/projects/${A}${q}`, undefined, 200)).id, A);
      const issue = await ok('GET', `/projects/${A}/issues/1${q}`, undefined, 200);
      assert.deepEqual([issue.project_id, issue.iid], [A, 1]);
      const mr = await ok('GET', `/projects/${A}/merge_requests/1${q}`, undefined, 200);
      assert.deepEqual([mr.project_id, mr.iid], [A, 1]);
      const approvals = await ok(
        'GET',
        `/projects/${A}/merge_requests/1/approvals${q}`,
        undefined,
        200,
      );
      assert.deepEqual([approvals.project_id, approvals.iid], [A, 1]);
      const milestone = await ok(
        'GET',
        `/projects/${A}/milestones/${m.a1}${query(true)}`,
        undefined,
        200,
      );
      assert.equal(milestone.id, m.a1);
      const member = await ok('GET', `/projects/${A}/members/${a.ids.bob}${q}`, undefined, 200);
      assert.equal(member.id, a.ids.bob);
      for (const list of ['issues', 'merge_requests', 'milestones', 'issues/1/notes', 'events']) {
        const r = await as('GET', `/projects/${A}/${list}${q}`);
        assert.equal(r.status, 200, `${list}: ${r.text}`);
        for (const item of r.body as Json[]) assert.equal(item.project_id, A, list);
      }
    });
  });
}
