/**
 * The event entity, byte for byte: key set and order (gitlab-compat §5.1) for issue, merge request,
 * note, push, project-creation and membership events; the note object; `data` and `push_data`
 * consistent for pushed/created/removed branches and tags; action_name for every action.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Catalog, seedCatalog } from '../helpers/catalog.js';
import { Fixtures } from '../helpers/fixtures.js';
import { get } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

type Json = Record<string, unknown>;
const BLANK = '0'.repeat(40);

const EVENT_KEYS = [
  'id',
  'title',
  'project_id',
  'action_name',
  'target_id',
  'target_iid',
  'target_type',
  'author_id',
  'data',
  'target_title',
  'created_at',
  'author',
  'imported',
  'imported_from',
  'author_username',
];
const NOTE_EVENT_KEYS = [...EVENT_KEYS.slice(0, 11), 'note', ...EVENT_KEYS.slice(11)];
const PUSH_EVENT_KEYS = [...EVENT_KEYS.slice(0, 14), 'push_data', 'author_username'];

/** One commit id per number, 40 hex characters. */
const sha = (n: number) => n.toString(16).padStart(40, 'c');

for (const dialect of DIALECTS) {
  describe(`event entity (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let catalog: Catalog;
    const ids: Record<string, number> = {};
    let alice: { id: number; email: string };
    let project: { id: number };
    let issue: { id: number; iid: number };
    let mr: { id: number; iid: number };
    let note: { id: number };

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          catalog = await seedCatalog(store);
          const f = new Fixtures(store);
          alice = await f.user('liddell', { name: 'Alice Liddell' });
          project = await f.project('wonder/land', alice.id, 'public');
          await f.member(project.id, alice.id, 50);
          issue = await f.issue(project.id, alice.id, 'Rabbit hole too deep');
          mr = await f.mergeRequest(project.id, alice.id, 'Shrink potion');
          note = await f.note(project.id, alice.id, { type: 'MergeRequest', id: mr.id }, 'LGTM!');
          const base = { projectId: project.id, authorId: alice.id };
          ids.issue = (
            await f.event({
              ...base,
              action: 'created',
              targetType: 'Issue',
              targetId: issue.id,
              issueId: issue.id,
              createdAt: '2026-01-02T10:00:00.123Z',
            })
          ).id;
          ids.merged = (
            await f.event({
              ...base,
              action: 'merged',
              targetType: 'MergeRequest',
              targetId: mr.id,
              createdAt: '2026-01-02T11:00:00.007Z',
            })
          ).id;
          ids.note = (
            await f.event({
              ...base,
              action: 'commented',
              targetType: 'Note',
              targetId: note.id,
              createdAt: '2026-01-02T12:00:00.000Z',
            })
          ).id;
          ids.pushed = (
            await f.event({
              ...base,
              action: 'pushed',
              createdAt: '2026-01-03T09:00:00.999Z',
              push: {
                ref: 'main',
                from: 'a'.repeat(40),
                to: 'b'.repeat(40),
                commits: [
                  { id: sha(1), message: 'First\n\nbody' },
                  { id: sha(2), message: '  Second line one  \nline two' },
                ],
              },
            })
          ).id;
          ids.tag = (
            await f.event({
              ...base,
              action: 'pushed',
              createdAt: '2026-01-03T10:00:00.000Z',
              push: {
                refType: 'tag',
                ref: 'v1.0',
                from: null,
                to: 'e'.repeat(40),
                commits: [{ id: sha(3), message: 'Release 1.0' }],
              },
            })
          ).id;
          ids.removed = (
            await f.event({
              ...base,
              action: 'pushed',
              createdAt: '2026-01-03T11:00:00.000Z',
              push: { ref: 'old-branch', from: 'f'.repeat(40), to: BLANK, commits: [] },
            })
          ).id;
          const many = Array.from({ length: 25 }, (_, i) => ({
            id: sha(100 + i),
            message:
              i === 24
                ? `  ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, '.repeat(3)}\nmore`
                : `Commit ${i + 1}`,
          }));
          ids.many = (
            await f.event({
              ...base,
              action: 'pushed',
              createdAt: '2026-01-03T12:00:00.000Z',
              push: { ref: 'feature/big', commits: many },
            })
          ).id;
          ids.created = (
            await f.event({ ...base, action: 'created', createdAt: '2026-01-04T00:00:00.000Z' })
          ).id;
          ids.joined = (
            await f.event({ ...base, action: 'joined', createdAt: '2026-01-04T01:00:00.000Z' })
          ).id;
          ids.left = (
            await f.event({ ...base, action: 'left', createdAt: '2026-01-04T02:00:00.000Z' })
          ).id;
          token = await f.token(alice.id, ['read_api']);
        },
      });
    });
    after(() => server.close());

    async function events(): Promise<Map<number, Json>> {
      const res = await get(
        server.url,
        `/api/v4/projects/${project.id}/events?per_page=100`,
        token,
      );
      assert.equal(res.status, 200);
      return new Map((res.body as Json[]).map((e) => [e.id as number, e]));
    }

    const author = () => ({
      id: alice.id,
      username: 'liddell',
      name: 'Alice Liddell',
      state: 'active',
      locked: false,
      avatar_url: `https://www.gravatar.com/avatar/${createHash('md5').update(alice.email).digest('hex')}?s=80&d=identicon`,
      web_url: `${server.url}/liddell`,
    });

    it('an issue event: every key, in order, with exact values', async () => {
      const e = (await events()).get(ids.issue!)!;
      assert.deepEqual(Object.keys(e), EVENT_KEYS);
      assert.deepEqual(e, {
        id: ids.issue,
        title: null,
        project_id: project.id,
        action_name: 'opened',
        target_id: issue.id,
        target_iid: issue.iid,
        target_type: 'Issue',
        author_id: alice.id,
        data: null,
        target_title: 'Rabbit hole too deep',
        created_at: '2026-01-02T10:00:00.123Z',
        author: author(),
        imported: false,
        imported_from: 'none',
        author_username: 'liddell',
      });
      assert.deepEqual(Object.keys(e.author as Json), Object.keys(author()));
    });

    it('a merged merge request reads "accepted" with its iid and title', async () => {
      const e = (await events()).get(ids.merged!)!;
      assert.deepEqual(Object.keys(e), EVENT_KEYS);
      assert.equal(e.action_name, 'accepted');
      assert.equal(e.target_type, 'MergeRequest');
      assert.equal(e.target_id, mr.id);
      assert.equal(e.target_iid, mr.iid);
      assert.equal(e.target_title, 'Shrink potion');
      assert.equal(e.created_at, '2026-01-02T11:00:00.007Z');
    });

    it('a note event carries the note object, target_title null', async () => {
      const e = (await events()).get(ids.note!)!;
      assert.deepEqual(Object.keys(e), NOTE_EVENT_KEYS);
      assert.equal(e.action_name, 'commented on');
      assert.equal(e.target_type, 'Note');
      assert.equal(e.target_id, note.id);
      assert.equal(e.target_iid, note.id);
      assert.equal(e.target_title, null);
      assert.equal(e.data, null);
      assert.deepEqual(e.note, {
        id: note.id,
        type: null,
        body: 'LGTM!',
        attachment: null,
        author: author(),
        created_at: '2026-01-01T09:00:00.000Z',
        updated_at: '2026-01-01T09:00:00.000Z',
        system: false,
        noteable_id: mr.id,
        noteable_type: 'MergeRequest',
        project_id: project.id,
        resolvable: false,
        confidential: false,
        internal: false,
        imported: false,
        imported_from: 'none',
        noteable_iid: mr.iid,
        commands_changes: {},
      });
      assert.deepEqual(Object.keys(e.note as Json)[0], 'id');
    });

    it('a push to a branch: data and push_data, consistent', async () => {
      const e = (await events()).get(ids.pushed!)!;
      assert.deepEqual(Object.keys(e), PUSH_EVENT_KEYS);
      assert.equal(e.action_name, 'pushed to');
      assert.equal(e.target_id, null);
      assert.equal(e.target_iid, null);
      assert.equal(e.target_type, null);
      assert.equal(e.target_title, null);
      assert.deepEqual(e.data, {
        before: 'a'.repeat(40),
        after: 'b'.repeat(40),
        ref: 'refs/heads/main',
        user_id: alice.id,
        user_name: 'Alice Liddell',
        repository: {
          name: 'land',
          url: 'git@127.0.0.1:wonder/land.git',
          description: 'The land project',
          homepage: `${server.url}/wonder/land`,
        },
        commits: [
          {
            id: sha(1),
            message: 'First\n\nbody',
            timestamp: '2026-01-03T09:00:00.999Z',
            url: `http://example.test/commit/${sha(1)}`,
            author: { name: 'Dev', email: 'dev@example.com' },
          },
          {
            id: sha(2),
            message: '  Second line one  \nline two',
            timestamp: '2026-01-03T09:00:00.999Z',
            url: `http://example.test/commit/${sha(2)}`,
            author: { name: 'Dev', email: 'dev@example.com' },
          },
        ],
        total_commits_count: 2,
      });
      assert.deepEqual(e.push_data, {
        commit_count: 2,
        action: 'pushed',
        ref_type: 'branch',
        commit_from: 'a'.repeat(40),
        commit_to: 'b'.repeat(40),
        ref: 'main',
        commit_title: 'Second line one',
        ref_count: null,
      });
    });

    it('a new tag reads "pushed new": blank before, null commit_from, refs/tags/', async () => {
      const e = (await events()).get(ids.tag!)!;
      assert.equal(e.action_name, 'pushed new');
      const data = e.data as Json;
      assert.equal(data.before, BLANK);
      assert.equal(data.after, 'e'.repeat(40));
      assert.equal(data.ref, 'refs/tags/v1.0');
      assert.equal(data.total_commits_count, 1);
      assert.deepEqual(e.push_data, {
        commit_count: 1,
        action: 'created',
        ref_type: 'tag',
        commit_from: null,
        commit_to: 'e'.repeat(40),
        ref: 'v1.0',
        commit_title: 'Release 1.0',
        ref_count: null,
      });
    });

    it('a deleted branch reads "deleted": blank after, null commit_to, no commits', async () => {
      const e = (await events()).get(ids.removed!)!;
      assert.equal(e.action_name, 'deleted');
      const data = e.data as Json;
      assert.equal(data.before, 'f'.repeat(40));
      assert.equal(data.after, BLANK);
      assert.equal(data.ref, 'refs/heads/old-branch');
      assert.deepEqual(data.commits, []);
      assert.equal(data.total_commits_count, 0);
      assert.deepEqual(e.push_data, {
        commit_count: 0,
        action: 'removed',
        ref_type: 'branch',
        commit_from: 'f'.repeat(40),
        commit_to: null,
        ref: 'old-branch',
        commit_title: null,
        ref_count: null,
      });
    });

    it('a big push lists the 20 newest commits oldest first; the title is truncated to 70', async () => {
      const e = (await events()).get(ids.many!)!;
      const data = e.data as { commits: Array<{ id: string }>; total_commits_count: number };
      assert.deepEqual(
        data.commits.map((c) => c.id),
        Array.from({ length: 20 }, (_, i) => sha(105 + i)),
      );
      assert.equal(data.total_commits_count, 25);
      const pushData = e.push_data as Json;
      assert.equal(pushData.commit_count, 25);
      assert.equal(pushData.ref, 'feature/big');
      assert.equal((e.data as Json).ref, 'refs/heads/feature/big');
      const title = pushData.commit_title as string;
      assert.equal(title.length, 70);
      assert.equal(title, 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, Lorem ipsu...');
    });

    it('project creation has a null target; joined and left too', async () => {
      const all = await events();
      for (const [key, name] of [
        ['created', 'created'],
        ['joined', 'joined'],
        ['left', 'left'],
      ] as const) {
        const e = all.get(ids[key]!)!;
        assert.deepEqual(Object.keys(e), EVENT_KEYS, key);
        assert.equal(e.action_name, name);
        assert.equal(e.target_id, null);
        assert.equal(e.target_iid, null);
        assert.equal(e.target_type, null);
        assert.equal(e.target_title, null);
        assert.equal(e.data, null);
      }
    });

    it('action_name follows GitLab for every action and target', async () => {
      const want: Record<string, string> = {
        'created:null': 'created',
        'created:Issue': 'opened',
        'updated:Issue': 'opened',
        'closed:Issue': 'closed',
        'reopened:Issue': 'opened',
        'pushed:null': 'pushed to',
        'commented:Note': 'commented on',
        'created:MergeRequest': 'opened',
        'merged:MergeRequest': 'accepted',
        'approved:MergeRequest': 'approved',
        'joined:null': 'joined',
        'left:null': 'left',
        'expired:null': 'removed due to membership expiration from',
        'created:Milestone': 'opened',
        'destroyed:Milestone': 'destroyed',
        'created:Snippet': 'opened',
        'updated:Project': 'opened',
        'updated:User': 'opened',
        'created:WikiPage::Meta': 'created',
        'updated:WikiPage::Meta': 'updated',
        'created:DesignManagement::Design': 'added',
        'destroyed:DesignManagement::Design': 'removed',
      };
      const res = await get(
        server.url,
        `/api/v4/projects/${catalog.projectId}/events?per_page=100`,
        catalog.ownerToken,
      );
      const byId = new Map((res.body as Json[]).map((e) => [e.id as number, e]));
      const seen = new Set<string>();
      for (const m of catalog.events) {
        const key = `${m.action}:${m.targetType}`;
        assert.ok(key in want, `no expectation for ${key}`);
        assert.equal(byId.get(m.id)!.action_name, want[key], key);
        seen.add(key);
      }
      assert.equal(seen.size, Object.keys(want).length);
    });

    it('target titles and iids for milestones, snippets, projects and users', async () => {
      const res = await get(
        server.url,
        `/api/v4/projects/${catalog.projectId}/events?per_page=100`,
        catalog.ownerToken,
      );
      const byType = (type: string) => (res.body as Json[]).find((e) => e.target_type === type)!;
      assert.equal(byType('Milestone').target_title, 'v1.0');
      assert.equal(byType('Milestone').target_iid, 1);
      assert.equal(byType('Snippet').target_title, 'Repro script');
      assert.equal(byType('Snippet').target_iid, byType('Snippet').target_id);
      assert.equal(byType('Project').target_title, 'catalog');
      assert.equal(byType('User').target_title, 'Alice');
      for (const e of res.body as Json[]) {
        assert.match(e.created_at as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }
    });
  });
}
