import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`events smoke (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let projectId: number;

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          const project = await f.project('alice/app', alice.id, 'public');
          projectId = project.id;
          await f.member(project.id, alice.id, 50);
          const issue = await f.issue(project.id, alice.id, 'First bug');
          await f.event({
            projectId: project.id,
            authorId: alice.id,
            action: 'created',
            targetType: 'Issue',
            targetId: issue.id,
            issueId: issue.id,
            createdAt: '2026-01-02T10:00:00.123Z',
          });
          await f.event({
            projectId: project.id,
            authorId: alice.id,
            action: 'pushed',
            createdAt: '2026-01-03T10:00:00.000Z',
            push: { commits: [{ id: 'c'.repeat(40), message: 'Fix it\n\nlong' }] },
          });
          token = await f.token(alice.id, ['read_api']);
        },
      });
    });
    after(() => server.close());

    it('lists project events newest first with GitLab headers', async () => {
      const res = await fetch(`${server.url}/api/v4/projects/${projectId}/events`, {
        headers: { 'PRIVATE-TOKEN': token },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.headers.get('x-total'), '2');
      const body = (await res.json()) as Array<Record<string, unknown>>;
      assert.deepEqual(
        body.map((e) => e.action_name),
        ['pushed to', 'opened'],
      );
      assert.equal(body[1]!.created_at, '2026-01-02T10:00:00.123Z');
      assert.equal((body[0]!.push_data as { commit_title: string }).commit_title, 'Fix it');
    });
  });
}
