/**
 * End to end through the REST writes (needs them: on main since ca8a251): a project's webhook
 * receives opening, commenting on and closing an issue, opening, approving and merging a merge
 * request, and a member joining, each with GitLab's headers and token; a confidential issue and
 * its note reach only the hook that asked for confidential kinds. (Git pushes are delivered
 * through the same outbox: see delivery.test.ts; the git push endpoint is not on main yet.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { call } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { Receiver } from './receiver.js';

for (const dialect of DIALECTS) {
  describe(`webhooks from REST writes (${dialect})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let secrets: Receiver;
    const tokens: Record<string, string> = {};
    const ids: Record<string, number> = {};

    const api = (who: string, method: string, path: string, body?: unknown) =>
      call(server.url, `/api/v4${path}`, {
        method,
        headers: {
          'PRIVATE-TOKEN': tokens[who]!,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    before(async () => {
      receiver = await new Receiver().listen();
      secrets = await new Receiver().listen();
      server = await startServer({ dialect, config: { webhooksAllowLocal: true } });
      const f = new Fixtures(server.store);
      for (const name of ['alice', 'bob']) {
        ids[name] = (await f.user(name)).id;
        tokens[name] = await f.token(ids[name]!, ['api']);
      }
    });
    after(async () => {
      await server.close();
      await receiver.close();
      await secrets.close();
    });

    it('delivers every write to the hooks that subscribed to it', async () => {
      const project = await api('alice', 'POST', '/projects', {
        name: 'Rocket',
        visibility: 'private',
      });
      assert.equal(project.status, 201, project.text);
      const id = (project.body as { id: number }).id;
      const hook = await api('alice', 'POST', `/projects/${id}/hooks`, {
        url: `${receiver.url}/gitlab`,
        token: 'hook-secret',
        push_events: true,
        issues_events: true,
        note_events: true,
        merge_requests_events: true,
        member_events: true,
      });
      assert.equal(hook.status, 201, hook.text);
      const confidentialHook = await api('alice', 'POST', `/projects/${id}/hooks`, {
        url: secrets.url,
        token: 'other-secret',
        push_events: false,
        confidential_issues_events: true,
        confidential_note_events: true,
      });
      assert.equal(confidentialHook.status, 201);

      const steps: [string, string, unknown][] = [
        ['POST', `/projects/${id}/members`, { user_id: ids.bob, access_level: 30 }],
        ['POST', `/projects/${id}/issues`, { title: 'Engine stalls', description: 'At T-3' }],
        ['POST', `/projects/${id}/issues/1/notes`, { body: 'Looking into it' }],
        ['PUT', `/projects/${id}/issues/1`, { state_event: 'close' }],
        [
          'POST',
          `/projects/${id}/merge_requests`,
          { source_branch: 'fix', target_branch: 'main', title: 'Fix the engine' },
        ],
        ['POST', `/projects/${id}/merge_requests/1/approve`, undefined],
        ['PUT', `/projects/${id}/merge_requests/1/merge`, undefined],
        ['POST', `/projects/${id}/issues`, { title: 'Key leaked', confidential: true }],
        ['POST', `/projects/${id}/issues/2/notes`, { body: 'Rotated' }],
      ];
      for (const [method, path, body] of steps) {
        const res = await api('alice', method, path, body);
        assert.ok(
          res.status === 200 || res.status === 201,
          `${method} ${path}: ${res.status} ${res.text}`,
        );
      }

      await receiver.waitFor(7);
      await secrets.waitFor(2);
      await new Promise((r) => setTimeout(r, 300));
      const seen = receiver.received.map((r) => {
        const attrs = (r.body.object_attributes ?? {}) as { action?: string; note?: string };
        return `${String(r.headers['x-gitlab-event'])} ${attrs.action ?? r.body.event_name ?? ''}${attrs.note ? ` ${attrs.note}` : ''}`;
      });
      // Deliveries run concurrently: their order is not the writes' order.
      assert.deepEqual(seen.sort(), [
        'Issue Hook close',
        'Issue Hook open',
        'Member Hook user_add_to_team',
        'Merge Request Hook approved',
        'Merge Request Hook merge',
        'Merge Request Hook open',
        'Note Hook create Looking into it',
      ]);
      for (const r of receiver.received) {
        assert.equal(r.url, '/gitlab');
        assert.equal(r.headers['x-gitlab-token'], 'hook-secret');
        assert.equal(r.headers['x-gitlab-instance'], server.url);
        assert.equal(r.headers['user-agent'], 'GitLab/17.5.0');
        assert.ok(r.headers['idempotency-key']);
        assert.equal(
          (r.body.project as { path_with_namespace: string }).path_with_namespace,
          'alice/rocket',
        );
      }
      const closed = receiver.received.find(
        (r) => (r.body.object_attributes as { action?: string }).action === 'close',
      )!;
      assert.equal((closed.body.object_attributes as { state: string }).state, 'closed');
      assert.equal(
        (closed.body.object_attributes as { description: string }).description,
        'At T-3',
      );
      const merged = receiver.received.find(
        (r) => (r.body.object_attributes as { action?: string }).action === 'merge',
      )!;
      assert.equal((merged.body.object_attributes as { state: string }).state, 'merged');
      assert.equal(
        (merged.body.object_attributes as { source_branch: string }).source_branch,
        'fix',
      );

      assert.deepEqual(secrets.received.map((r) => r.headers['x-gitlab-event']).sort(), [
        'Confidential Issue Hook',
        'Confidential Note Hook',
      ]);
      for (const r of secrets.received) assert.equal(r.headers['x-gitlab-token'], 'other-secret');
    });
  });
}
