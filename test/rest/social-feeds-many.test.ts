/**
 * Starred and followed feeds at GitLab's sizes (issue 33): 500 starred projects and 300 followed
 * users, all holding events, among many more events elsewhere (so the sets are a small share of
 * the log and are not walked as one): pages near the start are one statement per kind of source
 * (walks.ts `eachWalk`), deeper ones merged walks (SQLite takes at most 500 arms in a compound
 * SELECT, and an expression at most 1,000 levels deep: the count's terms are grouped); one star
 * more is one joined walk. Every page and total equals the plain answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_SOCIAL_PARTS } from '../../src/store/events.js';
import { insertEvents } from '../helpers/bulk.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const T0 = Date.UTC(2026, 0, 1);
/** Events in a project nobody starred by a user nobody follows: 20 times the sets' own. */
const ELSEWHERE = 14_000;

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
      // Every project and every user has events; far more are elsewhere, before and among them.
      const outsider = (await f.user('outsider')).id;
      const elsewhere = (await f.project('other/elsewhere', outsider, 'public')).id;
      const other = { projectId: elsewhere, authorId: outsider, action: 'created' as const };
      await insertEvents(
        server.store,
        Array.from({ length: ELSEWHERE / 2 }, (_, i) => ({ ...other, createdAt: T0 + i })),
      );
      const ids = await insertEvents(
        server.store,
        Array.from({ length: 660 }, (_, i) => ({
          projectId: projects[i % projects.length]!,
          authorId: users[(i * 7) % users.length]!,
          action: 'created' as const,
          createdAt: T0 + ELSEWHERE + i,
        })),
      );
      ids.forEach((id, i) => {
        const projectId = projects[i % projects.length]!;
        const authorId = users[(i * 7) % users.length]!;
        byProject.set(projectId, [id, ...(byProject.get(projectId) ?? [])]);
        byAuthor.set(authorId, [id, ...(byAuthor.get(authorId) ?? [])]);
      });
      await insertEvents(
        server.store,
        Array.from({ length: ELSEWHERE / 2 }, (_, i) => ({
          ...other,
          createdAt: T0 + 2 * ELSEWHERE + i,
        })),
      );
      await server.store.settle();
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

    // Pages near the start (one statement per kind of source) and deeper ones (merged walks).
    const WINDOWS = [
      [20, 1],
      [20, 2],
      [20, 6],
      [100, 3],
      [50, 9],
    ] as const;

    async function pages(scope: string, expected: number[]) {
      for (const [perPage, page] of WINDOWS) {
        const response = await fetch(
          `${server.url}/api/v4/events?scope=${scope}&per_page=${perPage}&page=${page}`,
          { headers: { 'private-token': token } },
        );
        assert.equal(response.status, 200, `${scope} page ${page} of ${perPage}`);
        const body = (await response.json()) as Array<{ id: number }>;
        assert.deepEqual(
          body.map((e) => e.id),
          expected.slice((page - 1) * perPage, page * perPage),
          `${scope} page ${page} of ${perPage}`,
        );
        assert.equal(response.headers.get('x-total'), String(expected.length));
      }
    }

    const newestFirst = (of: Map<number, number[]>, ids: number[]) =>
      ids.flatMap((id) => of.get(id) ?? []).sort((a, b) => b - a);

    it('500 starred projects: exact pages and total', async () => {
      await pages('starred', newestFirst(byProject, projects.slice(0, MAX_SOCIAL_PARTS)));
    });

    it('300 followed users: exact pages and total', async () => {
      await pages('followed', newestFirst(byAuthor, users.slice(0, 300)));
    });

    it('an event in one of hundreds of sources changes that feed at once, one elsewhere does not', async () => {
      const get = (scope: string, etag?: string) =>
        fetch(`${server.url}/api/v4/events?scope=${scope}&per_page=5`, {
          headers: { 'private-token': token, ...(etag ? { 'if-none-match': etag } : {}) },
        });
      const tags = new Map<string, string>();
      for (const scope of ['starred', 'followed']) {
        const response = await get(scope);
        assert.equal(response.status, 200);
        tags.set(scope, response.headers.get('etag')!);
      }
      // Elsewhere: neither feed's tag moves (the change feed now holds one project and author).
      const outsider = await server.store.db
        .selectFrom('projects')
        .select(['id', 'creator_id'])
        .where('full_path', '=', 'other/elsewhere')
        .executeTakeFirstOrThrow();
      await insertEvents(server.store, [
        {
          projectId: outsider.id,
          authorId: outsider.creator_id,
          action: 'created',
          createdAt: T0 + 3 * ELSEWHERE,
        },
      ]);
      for (const scope of ['starred', 'followed'])
        assert.equal((await get(scope, tags.get(scope))).status, 304, `${scope} after elsewhere`);
      // In the middle of both sets (id order): found among hundreds, not only among a few.
      const [id] = await insertEvents(server.store, [
        {
          projectId: projects[250]!,
          authorId: users[150]!,
          action: 'created',
          createdAt: T0 + 3 * ELSEWHERE + 1,
        },
      ]);
      for (const scope of ['starred', 'followed']) {
        const response = await get(scope, tags.get(scope));
        assert.equal(response.status, 200, `${scope} after its own event`);
        assert.equal(((await response.json()) as Array<{ id: number }>)[0]!.id, id);
      }
      byProject.set(projects[250]!, [id!, ...(byProject.get(projects[250]!) ?? [])]);
      byAuthor.set(users[150]!, [id!, ...(byAuthor.get(users[150]!) ?? [])]);
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
