/**
 * Who sees which events, on every endpoint, for every kind of viewer: anonymous, signed-in
 * non-member, guest, reporter, owner, the author of a confidential issue, admin. The expected
 * answers come from an independent restatement of GitLab's rules over an in-memory model, and
 * X-Total must count exactly what the viewer sees, with full pages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { get, ids, pagination } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

type Vis = 'public' | 'internal' | 'private';
type ViewerName = 'anonymous' | 'nina' | 'gus' | 'rita' | 'alice' | 'cora' | 'adam';

interface ModelEvent {
  id: number;
  projectKey: 'pub' | 'int' | 'priv';
  authorKey: string;
  push: boolean;
  /** Author of the confidential issue this event is about (issue or note on it). */
  confidentialIssueAuthor?: string;
}

const PROJECT_VIS: Record<ModelEvent['projectKey'], Vis> = {
  pub: 'public',
  int: 'internal',
  priv: 'private',
};
/** Access levels: alice owns all three; rita reports and gus is a guest in pub and priv. */
const LEVELS: Record<string, Partial<Record<ModelEvent['projectKey'], number>>> = {
  alice: { pub: 50, int: 50, priv: 50 },
  rita: { pub: 20, priv: 20 },
  gus: { pub: 10, priv: 10 },
};

/** GitLab's rules, restated independently of src/. */
function visible(e: ModelEvent, viewer: ViewerName): boolean {
  if (viewer === 'adam') return true;
  const signedIn = viewer !== 'anonymous';
  const level = LEVELS[viewer]?.[e.projectKey] ?? 0;
  const vis = PROJECT_VIS[e.projectKey];
  if (vis === 'internal' && !signedIn) return false;
  if (vis === 'private' && level === 0) return false;
  if (e.confidentialIssueAuthor !== undefined && level < 20 && e.confidentialIssueAuthor !== viewer)
    return false;
  if (e.push && vis === 'private' && level < 20) return false;
  return true;
}

const VIEWERS: ViewerName[] = ['anonymous', 'nina', 'gus', 'rita', 'alice', 'cora', 'adam'];

for (const dialect of DIALECTS) {
  describe(`visibility (${dialect})`, () => {
    let server: TestServer;
    const tokens: Partial<Record<string, string>> = {};
    const projects: Record<string, number> = {};
    const model: ModelEvent[] = [];

    before(async () => {
      server = await startServer({ dialect });
      const f = new Fixtures(server.store);
      const users: Record<string, number> = {};
      for (const name of ['alice', 'rita', 'gus', 'nina', 'cora', 'pat', 'bob']) {
        users[name] = (
          await f.user(name, {
            privateProfile: name === 'pat',
            state: name === 'bob' ? 'blocked' : 'active',
          })
        ).id;
      }
      users.adam = (await f.user('adam', { admin: true })).id;
      for (const key of ['pub', 'int', 'priv'] as const) {
        projects[key] = (await f.project(`acme/${key}`, users.alice!, PROJECT_VIS[key])).id;
      }
      for (const [user, levels] of Object.entries(LEVELS)) {
        for (const [key, level] of Object.entries(levels)) {
          await f.member(projects[key]!, users[user]!, level);
        }
      }
      let minute = 0;
      const add = async (
        projectKey: ModelEvent['projectKey'],
        authorKey: string,
        kind: 'issue' | 'confidential' | 'note' | 'push' | 'joined',
        confidentialAuthor?: string,
      ) => {
        const projectId = projects[projectKey]!;
        const authorId = users[authorKey]!;
        const createdAt = Date.UTC(2026, 0, 1) + minute++ * 60_000;
        let row;
        if (kind === 'issue' || kind === 'confidential') {
          const issueAuthor = confidentialAuthor ?? authorKey;
          const issue = await f.issue(
            projectId,
            users[issueAuthor]!,
            kind,
            kind === 'confidential',
          );
          row = await f.event({
            projectId,
            authorId,
            action: 'created',
            targetType: 'Issue',
            targetId: issue.id,
            issueId: issue.id,
            createdAt,
          });
          model.push({
            id: row.id,
            projectKey,
            authorKey,
            push: false,
            ...(kind === 'confidential' ? { confidentialIssueAuthor: issueAuthor } : {}),
          });
          if (kind === 'confidential') {
            // A note on the confidential issue, by the project owner.
            const note = await f.note(
              projectId,
              users.alice!,
              { type: 'Issue', id: issue.id },
              'x',
            );
            const noteRow = await f.event({
              projectId,
              authorId: users.alice!,
              action: 'commented',
              targetType: 'Note',
              targetId: note.id,
              issueId: issue.id,
              createdAt: createdAt + 1,
            });
            model.push({
              id: noteRow.id,
              projectKey,
              authorKey: 'alice',
              push: false,
              confidentialIssueAuthor: issueAuthor,
            });
          }
          return;
        }
        row = await f.event({
          projectId,
          authorId,
          action: kind === 'push' ? 'pushed' : 'joined',
          createdAt,
          ...(kind === 'push' ? { push: { commits: [{ id: 'd'.repeat(40), message: 'm' }] } } : {}),
        });
        model.push({ id: row.id, projectKey, authorKey, push: kind === 'push' });
      };
      for (let round = 0; round < 2; round++) {
        for (const key of ['pub', 'int', 'priv'] as const) {
          await add(key, 'alice', 'issue');
          await add(key, 'alice', 'confidential');
          await add(key, 'alice', 'push');
          await add(key, 'alice', 'joined');
        }
        // cora, no member anywhere, opens a confidential issue in the public project.
        await add('pub', 'cora', 'confidential', 'cora');
        await add('pub', 'pat', 'joined');
        await add('pub', 'bob', 'joined');
        await add('int', 'nina', 'joined');
      }
      for (const name of ['alice', 'rita', 'gus', 'nina', 'cora', 'pat', 'adam']) {
        tokens[name] = await f.token(users[name]!, ['read_api']);
      }
    });
    after(() => server.close());

    const as = (viewer: string, path: string) => get(server.url, path, tokens[viewer]);

    function expected(keep: (e: ModelEvent) => boolean, viewer: ViewerName): number[] {
      return model
        .filter((e) => keep(e) && visible(e, viewer))
        .map((e) => e.id)
        .sort((a, b) => b - a);
    }

    /** Fetches a listing both whole and two at a time; both must match and X-Total be exact. */
    async function assertListing(viewer: ViewerName, path: string, want: number[]) {
      const sep = path.includes('?') ? '&' : '?';
      const whole = await as(viewer, `${path}${sep}per_page=100`);
      assert.equal(whole.status, 200, `${viewer} ${path}`);
      assert.deepEqual(ids(whole.body), want, `${viewer} ${path}`);
      assert.equal(whole.headers.get('x-total'), String(want.length), `${viewer} ${path}`);
      const paged: number[] = [];
      const pages = Math.max(Math.ceil(want.length / 2), 1);
      for (let page = 1; page <= pages; page++) {
        const res = await as(viewer, `${path}${sep}per_page=2&page=${page}`);
        const got = ids(res.body);
        // Every page but the last is full.
        if (page < pages) assert.equal(got.length, 2, `${viewer} ${path} page ${page}`);
        assert.equal(res.headers.get('x-total-pages'), String(pages));
        paged.push(...got);
      }
      assert.deepEqual(paged, want, `${viewer} ${path} paged`);
    }

    it('project listings: each viewer sees exactly what the rules allow', async () => {
      for (const viewer of VIEWERS) {
        for (const key of ['pub', 'int', 'priv'] as const) {
          const path = `/api/v4/projects/${projects[key]}/events`;
          const vis = PROJECT_VIS[key];
          const readable =
            viewer === 'adam' ||
            vis === 'public' ||
            (vis === 'internal' && viewer !== 'anonymous') ||
            (LEVELS[viewer]?.[key] ?? 0) > 0;
          if (!readable) {
            const res = await as(viewer, path);
            assert.equal(res.status, 404, `${viewer} ${key}`);
            assert.equal(res.headers.get('content-type'), 'application/json');
            assert.equal(res.text, '{"message":"404 Project Not Found"}');
            continue;
          }
          await assertListing(
            viewer,
            path,
            expected((e) => e.projectKey === key, viewer),
          );
        }
      }
    });

    it('the rules are not vacuous: the model hides something from every non-owner', () => {
      for (const viewer of VIEWERS.filter((v) => v !== 'adam' && v !== 'alice')) {
        assert.ok(
          model.some((e) => !visible(e, viewer)),
          `${viewer} sees everything`,
        );
      }
      // Guests of the private project lose its pushes, reporters keep them.
      const privPush = model.find((e) => e.projectKey === 'priv' && e.push)!;
      assert.equal(visible(privPush, 'gus'), false);
      assert.equal(visible(privPush, 'rita'), true);
      // cora sees her own confidential issue but not alice's.
      assert.ok(model.some((e) => e.confidentialIssueAuthor === 'cora' && visible(e, 'cora')));
      assert.ok(model.some((e) => e.confidentialIssueAuthor === 'alice' && !visible(e, 'cora')));
    });

    it("user listings: an author's events filtered by what the viewer may see", async () => {
      for (const viewer of VIEWERS) {
        for (const author of ['alice', 'cora', 'nina']) {
          await assertListing(
            viewer,
            `/api/v4/users/${author}/events`,
            expected((e) => e.authorKey === author, viewer),
          );
        }
      }
    });

    it("/events lists the viewer's own events; scope=all every event of their projects", async () => {
      for (const viewer of VIEWERS.filter((v) => v !== 'anonymous')) {
        await assertListing(
          viewer,
          '/api/v4/events',
          expected((e) => e.authorKey === viewer, viewer),
        );
        const memberOf = (e: ModelEvent) => (LEVELS[viewer]?.[e.projectKey] ?? 0) > 0;
        await assertListing(viewer, '/api/v4/events?scope=all', expected(memberOf, viewer));
      }
    });

    it('a private profile lists [] except to itself and admins', async () => {
      for (const viewer of ['anonymous', 'nina', 'alice', 'rita'] as const) {
        const res = await as(viewer, '/api/v4/users/pat/events');
        assert.equal(res.status, 200, viewer);
        assert.equal(res.text, '[]');
        assert.deepEqual(pagination(res.headers), {
          page: '1',
          perPage: '20',
          next: '',
          prev: '',
          total: '0',
          totalPages: '1',
        });
      }
      const own = model
        .filter((e) => e.authorKey === 'pat')
        .map((e) => e.id)
        .reverse();
      assert.equal(own.length, 2);
      assert.deepEqual(ids((await as('pat', '/api/v4/users/pat/events')).body), own);
      assert.deepEqual(ids((await as('adam', '/api/v4/users/PAT/events')).body), own);
    });

    it("a blocked user's events list [] except to admins", async () => {
      for (const viewer of ['anonymous', 'nina', 'alice'] as const) {
        const res = await as(viewer, '/api/v4/users/bob/events');
        assert.equal(res.status, 200);
        assert.equal(res.text, '[]');
        assert.equal(res.headers.get('x-total'), '0');
      }
      const own = model
        .filter((e) => e.authorKey === 'bob')
        .map((e) => e.id)
        .reverse();
      assert.deepEqual(ids((await as('adam', '/api/v4/users/bob/events')).body), own);
    });

    it('filters combine with visibility', async () => {
      const res = await as('gus', `/api/v4/users/alice/events?action=pushed&per_page=100`);
      assert.deepEqual(
        ids(res.body),
        expected((e) => e.authorKey === 'alice' && e.push, 'gus'),
      );
      // gus sees the public and internal pushes but not the private project's.
      assert.equal(res.headers.get('x-total'), '4');
      const notes = await as('cora', `/api/v4/projects/${projects.pub}/events?target_type=note`);
      assert.deepEqual(
        ids(notes.body),
        model
          .filter((e) => e.projectKey === 'pub' && e.confidentialIssueAuthor === 'cora')
          .filter((e) => e.authorKey === 'alice')
          .map((e) => e.id)
          .reverse(),
      );
    });
  });
}
