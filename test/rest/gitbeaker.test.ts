/**
 * @gitbeaker/rest 43.8.0, unchanged, against the running server: current user, events of all
 * three endpoints with filters, following Link rel="next" to the end, showExpanded pagination
 * info and a project addressed by its full path. (Never provoke 429/502 here: gitbeaker retries
 * those for minutes.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { Fixtures } from '../helpers/fixtures.js';
import { get, ids } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

type Event = { id: number; action_name: string; target_type: string | null; project_id: number };

for (const dialect of DIALECTS) {
  describe(`@gitbeaker/rest against pulsegate (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let aliceId: number;
    let projectId: number;

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          aliceId = alice.id;
          const project = await f.project('group/proj', alice.id, 'public');
          const other = await f.project('group/other', alice.id, 'public');
          projectId = project.id;
          const issue = await f.issue(project.id, alice.id, 'Bug');
          let day = 1;
          const at = () => Date.UTC(2026, 0, day++, 12);
          const base = { projectId: project.id, authorId: alice.id };
          await f.event({ ...base, action: 'created', createdAt: at() });
          await f.event({
            ...base,
            action: 'created',
            targetType: 'Issue',
            targetId: issue.id,
            issueId: issue.id,
            createdAt: at(),
          });
          for (let i = 0; i < 3; i++) {
            await f.event({
              ...base,
              action: 'pushed',
              createdAt: at(),
              push: { commits: [{ id: String(i).repeat(40), message: `Push ${i}` }] },
            });
          }
          await f.event({
            ...base,
            action: 'closed',
            targetType: 'Issue',
            targetId: issue.id,
            issueId: issue.id,
            createdAt: at(),
          });
          await f.event({ ...base, action: 'joined', createdAt: at() });
          await f.event({
            projectId: other.id,
            authorId: alice.id,
            action: 'pushed',
            createdAt: at(),
            push: { commits: [{ id: 'f'.repeat(40), message: 'Elsewhere' }] },
          });
          token = await f.token(alice.id, ['api']);
        },
      });
    });
    after(() => server.close());

    const client = () => new Gitlab({ host: server.url, token });
    /** The whole answer in one raw request, to compare what gitbeaker assembled page by page. */
    const raw = async (path: string) => {
      const sep = path.includes('?') ? '&' : '?';
      const res = await get(server.url, `/api/v4/${path}${sep}per_page=100`, token);
      assert.equal(res.status, 200);
      return ids(res.body);
    };

    it('Users.showCurrentUser', async () => {
      const user = (await client().Users.showCurrentUser()) as unknown as Record<string, unknown>;
      assert.equal(user.id, aliceId);
      assert.equal(user.username, 'alice');
      assert.ok(String(user.web_url).startsWith(server.url));
    });

    it('Events.all follows pages to the end (per_page 2 over 8 events)', async () => {
      const events = (await client().Events.all({ perPage: 2 })) as unknown as Event[];
      assert.equal(events.length, 8);
      assert.deepEqual(
        events.map((e) => e.id),
        await raw('events'),
      );
    });

    it('filters survive every page on all three endpoints', async () => {
      const api = client();
      const pushed = (await api.Events.all({ perPage: 2, action: 'pushed' })) as unknown as Event[];
      assert.deepEqual(
        pushed.map((e) => e.id),
        await raw('events?action=pushed'),
      );
      assert.equal(pushed.length, 4);
      assert.ok(pushed.every((e) => e.action_name === 'pushed to'));

      const byUser = (await api.Events.all({
        userId: 'alice',
        perPage: 2,
        sort: 'asc',
        targetType: 'issue',
      })) as unknown as Event[];
      assert.deepEqual(
        byUser.map((e) => e.id),
        await raw('users/alice/events?sort=asc&target_type=issue'),
      );
      assert.equal(byUser.length, 2);
      assert.ok(byUser[0]!.id < byUser[1]!.id);

      const byProject = (await api.Events.all({
        projectId: 'group/proj',
        perPage: 2,
        after: '2026-01-02',
        before: '2026-01-07',
      })) as unknown as Event[];
      assert.deepEqual(
        byProject.map((e) => e.id),
        await raw(`projects/${projectId}/events?after=2026-01-02&before=2026-01-07`),
      );
      assert.equal(byProject.length, 4);
      assert.ok(byProject.every((e) => e.project_id === projectId));

      const allEvents = (await api.Users.allEvents(aliceId, {
        perPage: 3,
        action: 'pushed',
      })) as unknown as Event[];
      assert.equal(allEvents.length, 4);
    });

    it('showExpanded reports the last page fetched', async () => {
      const result = (await client().Events.all({
        projectId: 'group/proj',
        perPage: 2,
        maxPages: 2,
        showExpanded: true,
      })) as unknown as { data: Event[]; paginationInfo: Record<string, unknown> };
      assert.equal(result.data.length, 4);
      assert.deepEqual(result.paginationInfo, {
        total: 7,
        next: 3,
        current: 2,
        previous: 1,
        perPage: 2,
        totalPages: 4,
      });
    });

    it('a personal access token works as an OAuth bearer token', async () => {
      const api = new Gitlab({ host: server.url, oauthToken: token });
      const user = (await api.Users.showCurrentUser()) as unknown as { id: number };
      assert.equal(user.id, aliceId);
      const events = (await api.Events.all({ perPage: 5 })) as unknown as Event[];
      assert.equal(events.length, 8);
    });

    it("errors surface GitLab's messages", async () => {
      await assert.rejects(
        client().Events.all({ projectId: 'group/missing' }),
        (error: Error & { cause?: { response?: { status?: number } } }) => {
          assert.equal(error.message, '404 Project Not Found');
          assert.equal(error.cause?.response?.status, 404);
          return true;
        },
      );
      await assert.rejects(client().Events.all({ action: 'Pushed' as never }), (error: Error) => {
        assert.equal(error.message, 'action does not have a valid value');
        return true;
      });
      await assert.rejects(
        new Gitlab({ host: server.url, token: 'glpat-wrong' }).Users.showCurrentUser(),
        (error: Error) => {
          assert.equal(error.message, '401 Unauthorized');
          return true;
        },
      );
    });
  });
}
