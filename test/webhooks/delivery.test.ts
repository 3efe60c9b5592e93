/**
 * Webhooks end to end against a receiver on 127.0.0.1 (local requests allowed): hooks made through
 * the API, events written through the recorder, payloads with GitLab's headers and token,
 * confidential kinds only to hooks that asked for them, retries with the same Idempotency-Key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { Fixtures } from '../helpers/fixtures.js';
import { call } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { Receiver } from './receiver.js';
import { comment, mergeRequestMerged, openIssue, push, write } from './record.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const dialect of DIALECTS) {
  describe(`webhook delivery (${dialect})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let confidentialReceiver: Receiver;
    let token: string;
    let alice: { id: number };
    let bob: { id: number };
    let projectId: number;

    const api = (method: string, path: string, body?: unknown) =>
      call(server.url, `/api/v4${path}`, {
        method,
        headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    before(async () => {
      receiver = await new Receiver().listen();
      confidentialReceiver = await new Receiver().listen();
      server = await startServer({
        dialect,
        config: { webhooksAllowLocal: true },
        seed: async (store) => {
          const f = new Fixtures(store);
          const a = await f.user('alice');
          const b = await f.user('bob');
          const project = await f.project('alice/api', a.id, 'private');
          await f.member(project.id, a.id, ACCESS_LEVELS.maintainer);
          await f.member(project.id, b.id, ACCESS_LEVELS.developer);
          alice = a;
          bob = b;
          projectId = project.id;
          token = await f.token(a.id);
        },
      });
    });

    after(async () => {
      await server.close();
      await receiver.close();
      await confidentialReceiver.close();
    });

    it('delivers issue, note, merge request, push and member payloads with GitLab headers', async () => {
      const created = await api('POST', `/projects/${projectId}/hooks`, {
        url: `${receiver.url}/hook?x=1`,
        token: 's3cret token',
        issues_events: true,
        note_events: true,
        merge_requests_events: true,
        member_events: true,
      });
      assert.equal(created.status, 201, created.text);
      const hook = created.body as Record<string, unknown>;
      assert.equal(hook.push_events, true, 'push_events defaults to true');
      assert.equal('token' in hook, false, 'the token is never returned');
      const confidential = await api('POST', `/projects/${projectId}/hooks`, {
        url: confidentialReceiver.url,
        push_events: false,
        confidential_issues_events: true,
        confidential_note_events: true,
      });
      assert.equal(confidential.status, 201);

      const now = server.clock.now();
      const issueId = await openIssue(
        server.store,
        server.services,
        now,
        projectId,
        alice.id,
        'Crash on start',
      );
      await comment(
        server.store,
        server.services,
        now,
        projectId,
        bob.id,
        { type: 'Issue', id: issueId },
        'Seen it too',
      );
      await mergeRequestMerged(
        server.store,
        server.services,
        now,
        projectId,
        alice.id,
        'Fix the crash',
      );
      await push(server.store, server.services, now, projectId, alice.id);
      await write(server.store, server.services, now, async () => ({
        projectId,
        authorId: bob.id,
        action: 'joined',
        targetType: null,
        targetId: null,
      }));
      const secret = await openIssue(
        server.store,
        server.services,
        now,
        projectId,
        alice.id,
        'Leaked key',
        true,
      );
      await comment(
        server.store,
        server.services,
        now,
        projectId,
        alice.id,
        { type: 'Issue', id: secret },
        'Rotating it',
      );

      await receiver.waitFor(5);
      await confidentialReceiver.waitFor(2);
      // Nothing more arrives: confidential activity never reaches the first hook.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(receiver.received.length, 5);
      assert.equal(confidentialReceiver.received.length, 2);

      const byEvent = new Map(receiver.received.map((r) => [r.headers['x-gitlab-event'], r]));
      assert.deepEqual([...byEvent.keys()].sort(), [
        'Issue Hook',
        'Member Hook',
        'Merge Request Hook',
        'Note Hook',
        'Push Hook',
      ]);
      for (const r of receiver.received) {
        assert.equal(r.method, 'POST');
        assert.equal(r.url, '/hook?x=1');
        assert.equal(r.headers['content-type'], 'application/json');
        assert.equal(r.headers['x-gitlab-token'], 's3cret token');
        assert.equal(r.headers['x-gitlab-instance'], server.url);
        assert.equal(r.headers['user-agent'], 'GitLab/17.5.0');
        assert.match(String(r.headers['x-gitlab-webhook-uuid']), UUID);
        assert.match(String(r.headers['x-gitlab-event-uuid']), UUID);
        assert.match(String(r.headers['idempotency-key']), UUID);
      }
      const issue = byEvent.get('Issue Hook')!.body;
      assert.equal(issue.object_kind, 'issue');
      assert.equal(issue.event_type, 'issue');
      assert.deepEqual(issue.user, {
        id: alice.id,
        name: 'Alice',
        username: 'alice',
        avatar_url: (issue.user as { avatar_url: string }).avatar_url,
        email: '[REDACTED]',
      });
      const attrs = issue.object_attributes as Record<string, unknown>;
      assert.equal(attrs.title, 'Crash on start');
      assert.equal(attrs.description, 'About Crash on start');
      assert.equal(attrs.action, 'open');
      assert.equal(attrs.state, 'opened');
      assert.equal(attrs.confidential, false);
      assert.equal(attrs.created_at, '2026-01-15T12:00:00Z');
      assert.match(String(attrs.url), new RegExp(`^${server.url}/alice/api/-/issues/\\d+$`));
      const project = issue.project as Record<string, unknown>;
      assert.equal(project.path_with_namespace, 'alice/api');
      assert.equal(project.visibility_level, 0);
      assert.equal(project.web_url, `${server.url}/alice/api`);
      assert.deepEqual(Object.keys(issue.repository as object).sort(), [
        'description',
        'homepage',
        'name',
        'url',
      ]);

      const note = byEvent.get('Note Hook')!.body;
      assert.equal(note.object_kind, 'note');
      assert.equal((note.object_attributes as { note: string }).note, 'Seen it too');
      assert.equal((note.object_attributes as { noteable_type: string }).noteable_type, 'Issue');
      assert.equal((note.issue as { id: number }).id, issueId);
      assert.equal((note.user as { username: string }).username, 'bob');

      const mr = byEvent.get('Merge Request Hook')!.body;
      assert.equal(mr.object_kind, 'merge_request');
      const mrAttrs = mr.object_attributes as Record<string, unknown>;
      assert.equal(mrAttrs.action, 'merge');
      assert.equal(mrAttrs.state, 'merged');
      assert.equal(mrAttrs.source_branch, 'feature');
      assert.equal(mrAttrs.target_branch, 'main');
      assert.equal(mrAttrs.merged_at, '2026-01-15T12:00:00Z');

      const pushed = byEvent.get('Push Hook')!.body;
      assert.equal(pushed.object_kind, 'push');
      assert.equal(pushed.ref, 'refs/heads/main');
      assert.equal(pushed.before, 'a'.repeat(40));
      assert.equal(pushed.after, 'b'.repeat(40));
      assert.equal(pushed.total_commits_count, 1);
      assert.deepEqual(
        (pushed.commits as { title: string }[]).map((c) => c.title),
        ['Fix the thing'],
      );
      assert.equal(pushed.user_email, '[REDACTED]');

      const member = byEvent.get('Member Hook')!.body;
      assert.equal(member.event_name, 'user_add_to_team');
      assert.equal(member.user_username, 'bob');
      assert.equal(member.access_level, 'Developer');

      // Two hooks, one event each: every delivery has its own key, the event its own UUID.
      const keys = new Set(receiver.received.map((r) => r.headers['idempotency-key']));
      assert.equal(keys.size, 5);

      // Deliveries to one hook run concurrently, as GitLab's do: their order is not promised.
      const confidentialByEvent = new Map(
        confidentialReceiver.received.map((r) => [r.headers['x-gitlab-event'], r]),
      );
      assert.deepEqual([...confidentialByEvent.keys()].sort(), [
        'Confidential Issue Hook',
        'Confidential Note Hook',
      ]);
      const confIssue = confidentialByEvent.get('Confidential Issue Hook')!;
      assert.equal(confIssue.body.event_type, 'confidential_issue');
      assert.equal(confIssue.headers['x-gitlab-token'], undefined, 'no token, no header');
      const confNote = confidentialByEvent.get('Confidential Note Hook')!;
      assert.equal(confNote.body.event_type, 'confidential_note');
      assert.equal(confNote.headers['x-gitlab-token'], undefined);

      // The log: newest first, request and response kept, the token redacted.
      const log = await api(
        'GET',
        `/projects/${projectId}/hooks/${hook.id as number}/events?per_page=2`,
      );
      assert.equal(log.status, 200);
      assert.equal(log.headers.get('x-total'), '5');
      const entries = log.body as Record<string, unknown>[];
      assert.equal(entries.length, 2);
      assert.equal(entries[0]!.status, 'delivered');
      assert.equal(entries[0]!.response_status, '200');
      assert.equal(entries[0]!.response_body, 'ok');
      assert.equal(
        (entries[0]!.request_headers as Record<string, string>)['x-gitlab-token'],
        '[REDACTED]',
      );
      assert.equal(typeof entries[0]!.execution_duration, 'number');
    });

    it('retries a failing delivery with the same Idempotency-Key, and resends it on request', async () => {
      const retrying = await new Receiver().listen();
      try {
        retrying.script = [500, 500];
        const created = await api('POST', `/projects/${projectId}/hooks`, {
          url: retrying.url,
          push_events: false,
          issues_events: true,
        });
        const hookId = (created.body as { id: number }).id;
        await openIssue(
          server.store,
          server.services,
          server.clock.now(),
          projectId,
          alice.id,
          'Flaky',
        );
        const attempt = async (n: number) => {
          await retrying.waitFor(n);
          // The attempt is recorded after the answer; wait for it, then move past the back-off.
          for (let i = 0; i < 100; i++) {
            const log = await api('GET', `/projects/${projectId}/hooks/${hookId}/events`);
            const [entry] = log.body as { attempts: number; status: string }[];
            if (entry!.attempts === n && entry!.status !== 'delivering') return entry!;
            await new Promise((r) => setTimeout(r, 20));
          }
          throw new Error(`attempt ${n} was not recorded`);
        };
        const first = await attempt(1);
        assert.equal(first.status, 'pending');
        // Not before its time: the retry waits for the back-off.
        server.services.webhooks.worker.poke();
        await new Promise((r) => setTimeout(r, 200));
        assert.equal(retrying.received.length, 1);
        server.clock.advance(60_000);
        server.services.webhooks.worker.poke();
        await attempt(2);
        server.clock.advance(60_000);
        server.services.webhooks.worker.poke();
        const third = await attempt(3);
        assert.equal(third.status, 'delivered');
        const keys = retrying.received.map((r) => r.headers['idempotency-key']);
        assert.equal(keys.length, 3);
        assert.equal(new Set(keys).size, 1, 'one key for every attempt');
        const uuids = new Set(retrying.received.map((r) => r.headers['x-gitlab-webhook-uuid']));
        assert.equal(uuids.size, 3, 'each request has its own webhook UUID');
        assert.deepEqual(retrying.received[2]!.body, retrying.received[0]!.body);
        const hook = await api('GET', `/projects/${projectId}/hooks/${hookId}`);
        assert.equal((hook.body as { alert_status: string }).alert_status, 'executable');

        const log = await api('GET', `/projects/${projectId}/hooks/${hookId}/events`);
        const deliveryId = (log.body as { id: number }[])[0]!.id;
        const resent = await api(
          'POST',
          `/projects/${projectId}/hooks/${hookId}/events/${deliveryId}/resend`,
        );
        assert.equal(resent.status, 201);
        await retrying.waitFor(4);
        assert.equal(retrying.received[3]!.headers['idempotency-key'], keys[0]);
      } finally {
        await retrying.close();
      }
    });

    it('sends a test delivery for a trigger, and refuses triggers without sample data', async () => {
      const testing = await new Receiver().listen();
      try {
        const created = await api('POST', `/projects/${projectId}/hooks`, {
          url: testing.url,
          push_events: false,
        });
        const hookId = (created.body as { id: number }).id;
        const sent = await api('POST', `/projects/${projectId}/hooks/${hookId}/test/push_events`);
        assert.equal(sent.status, 201);
        assert.deepEqual(sent.body, { message: '201 Created' });
        await testing.waitFor(1);
        assert.equal(testing.received[0]!.headers['x-gitlab-event'], 'Push Hook');
        assert.equal(testing.received[0]!.body.object_kind, 'push');
        const tag = await api(
          'POST',
          `/projects/${projectId}/hooks/${hookId}/test/tag_push_events`,
        );
        assert.equal(tag.status, 422);
        assert.deepEqual(tag.body, { message: 'Ensure the project has at least one tag.' });
        const bad = await api('POST', `/projects/${projectId}/hooks/${hookId}/test/job_events`);
        assert.equal(bad.status, 400);
        assert.deepEqual(bad.body, { error: 'trigger does not have a valid value' });
      } finally {
        await testing.close();
      }
    });
  });
}
