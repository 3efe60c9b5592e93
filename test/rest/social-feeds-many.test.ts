/**
 * Starred and followed feeds at GitLab's sizes (issue 33): 500 starred projects and 300 followed
 * users are merged walks (SQLite takes at most 500 arms in a compound SELECT, and an expression
 * at most 1,000 levels deep: the count's terms are grouped); one star more is one joined walk.
 * Either way every page and total equals the plain answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_SOCIAL_PARTS } from '../../src/store/events.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const T0 = Date.UTC(2026, 0, 1);

for (const dialect of DIALECTS) {
  describe(`starred and followed feeds over hundreds of sources (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let viewer: number;
    let projects: number[];
    let users: number[];
    /** Event ids, newest first, by the project they are in and by their author. */
    const byProject = new Map<number, number[]>();
    const byAuthor = new Map<number, number[]>();

    before(async () => {
      server = await startServer({ dialect });
      const f = new Fixtures(server.store);
      const { db } = server.store;
      viewer = (await f.user('reader')).id;
      token = await f.token(viewer, ['read_api']);
      await db
        .insertInto('users')
        .values(
          Array.from({ length: 310 }, (_, i) => ({
            username: `u${i}`,
            name: `U${i}`,
            email: `u${i}@example.com`,
            state: 'active',
            password_hash: null,
            admin: 0,
            two_factor_enabled: 0,
            private_profile: 0,
            created_at: T0,
          })),
        )
        .execute();
      users = (
        await db.selectFrom('users').select('id').where('id', '<>', viewer).orderBy('id').execute()
      ).map((u) => u.id);
      for (let start = 0; start < 510; start += 100) {
        await db
          .insertInto('projects')
          .values(
            Array.from({ length: Math.min(100, 510 - start) }, (_, k) => {
              const i = start + k;
              return {
                namespace: 'many',
                path: `p${i}`,
                full_path: `many/p${i}`,
                name: `p${i}`,
                description: '',
                visibility: 'public',
                creator_id: viewer,
                created_at: T0,
              };
            }),
          )
          .execute();
      }
      projects = (await db.selectFrom('projects').select('id').orderBy('id').execute()).map(
        (p) => p.id,
      );
      // Events spread over every 7th project and every 5th user.
      for (let i = 0; i < 120; i++) {
        const projectId = projects[(i * 7) % projects.length]!;
        const authorId = users[(i * 5) % users.length]!;
        const row = await f.event({ projectId, authorId, action: 'created', createdAt: T0 + i });
        byProject.set(projectId, [row.id, ...(byProject.get(projectId) ?? [])]);
        byAuthor.set(authorId, [row.id, ...(byAuthor.get(authorId) ?? [])]);
      }
      await db
        .insertInto('project_stars')
        .values(
          projects
            .slice(0, MAX_SOCIAL_PARTS)
            .map((id) => ({ user_id: viewer, project_id: id, created_at: T0 })),
        )
        .execute();
      await db
        .insertInto('user_follows')
        .values(
          users
            .slice(0, 300)
            .map((id) => ({ follower_id: viewer, followee_id: id, created_at: T0 })),
        )
        .execute();
    });
    after(() => server.close());

    async function pages(scope: string, expected: number[]) {
      for (const page of [1, 2, 6]) {
        const response = await fetch(
          `${server.url}/api/v4/events?scope=${scope}&per_page=20&page=${page}`,
          { headers: { 'private-token': token } },
        );
        assert.equal(response.status, 200);
        const body = (await response.json()) as Array<{ id: number }>;
        assert.deepEqual(
          body.map((e) => e.id),
          expected.slice((page - 1) * 20, page * 20),
          `${scope} page ${page}`,
        );
        assert.equal(response.headers.get('x-total'), String(expected.length));
      }
    }

    const newestFirst = (of: Map<number, number[]>, ids: number[]) =>
      ids.flatMap((id) => of.get(id) ?? []).sort((a, b) => b - a);

    it('500 starred projects: merged walks, exact pages and total', async () => {
      await pages('starred', newestFirst(byProject, projects.slice(0, MAX_SOCIAL_PARTS)));
    });

    it('300 followed users: merged walks, exact pages and total', async () => {
      await pages('followed', newestFirst(byAuthor, users.slice(0, 300)));
    });

    it('one star past the merge limit: one joined walk, the same answer', async () => {
      await server.store.db
        .insertInto('project_stars')
        .values(
          projects
            .slice(MAX_SOCIAL_PARTS)
            .map((id) => ({ user_id: viewer, project_id: id, created_at: T0 })),
        )
        .execute();
      assert.ok(projects.length > MAX_SOCIAL_PARTS);
      await pages('starred', newestFirst(byProject, projects));
    });
  });
}
