/**
 * Every events behaviour of REST has a GraphQL twin: the same fixture, the same filter, the same
 * events in the same order, the same visibility decisions. REST is the reference here: each case
 * asks both faces and compares ids (and the flat REST fields GraphQL mirrors).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ProjectEventsDocument,
  UserEventsDocument,
  ViewerEventsDocument,
  type ViewerEventsQuery,
} from './generated/graphql.js';
import { ACTIONS, TARGET_TYPES } from '../../src/domain/vocabulary.js';
import { type Catalog, seedCatalog } from '../helpers/catalog.js';
import { Fixtures } from '../helpers/fixtures.js';
import { get, ids } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { ENGINES, type GqlResponse, gql } from './client.js';

interface World {
  catalog: Catalog;
  tokens: Record<string, string>;
  projects: Record<string, number>;
  users: Record<string, number>;
}

/** Private/internal projects, a confidential issue with a note, pushes, private/blocked users. */
async function seedWorld(server: TestServer): Promise<World> {
  const catalog = await seedCatalog(server.store);
  const f = new Fixtures(server.store);
  const users: Record<string, number> = {};
  for (const name of ['owen', 'rita', 'gus', 'nina', 'cora', 'pat', 'bob', 'adam']) {
    users[name] = (
      await f.user(name, {
        admin: name === 'adam',
        privateProfile: name === 'pat',
        state: name === 'bob' ? 'blocked' : 'active',
      })
    ).id;
  }
  const projects: Record<string, number> = {};
  for (const vis of ['public', 'internal', 'private'] as const) {
    const p = await f.project(`corp/${vis}`, users.owen!, vis);
    projects[vis] = p.id;
    await f.member(p.id, users.owen!, 50);
    await f.member(p.id, users.rita!, 20);
    await f.member(p.id, users.gus!, 10);
    if (vis !== 'private') await f.member(p.id, users.pat!, 30);
    const secret = await f.issue(p.id, users.cora!, `Secret in ${vis}`, true);
    const open = await f.issue(p.id, users.owen!, `Open in ${vis}`);
    const note = await f.note(p.id, users.owen!, { type: 'Issue', id: secret.id }, 'hush');
    let minute = 0;
    const at = () => Date.UTC(2026, 0, 12, 10, minute++);
    for (const author of ['owen', 'cora', 'pat', 'bob']) {
      const authorId = users[author]!;
      await f.event({
        projectId: p.id,
        authorId,
        action: 'created',
        targetType: 'Issue',
        targetId: open.id,
        issueId: open.id,
        createdAt: at(),
      });
      await f.event({
        projectId: p.id,
        authorId,
        action: 'created',
        targetType: 'Issue',
        targetId: secret.id,
        issueId: secret.id,
        createdAt: at(),
      });
      await f.event({
        projectId: p.id,
        authorId,
        action: 'commented',
        targetType: 'Note',
        targetId: note.id,
        issueId: secret.id,
        createdAt: at(),
      });
      await f.event({
        projectId: p.id,
        authorId,
        action: 'pushed',
        createdAt: at(),
        push: { commits: [{ id: 'd'.repeat(40), message: 'code' }] },
      });
      await f.event({ projectId: p.id, authorId, action: 'joined', createdAt: at() });
    }
  }
  const tokens: Record<string, string> = { alice: catalog.ownerToken };
  for (const name of ['owen', 'rita', 'gus', 'nina', 'cora', 'pat', 'adam']) {
    tokens[name] = await f.token(users[name]!, ['read_api']);
  }
  return { catalog, tokens, projects, users };
}

async function restIds(server: TestServer, path: string, token?: string): Promise<number[]> {
  const sep = path.includes('?') ? '&' : '?';
  const res = await get(server.url, `${path}${sep}per_page=100`, token);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return ids(res.body);
}

/** REST query parameters → the GraphQL filter input. */
function toFilter(params: Record<string, string>) {
  const filter: Record<string, string> = {};
  if (params.action) filter.action = params.action.toUpperCase();
  if (params.target_type) filter.targetType = params.target_type.toUpperCase();
  if (params.before) filter.before = params.before;
  if (params.after) filter.after = params.after;
  if (params.sort) filter.sort = params.sort.toUpperCase();
  return filter as never;
}

const CASES: Array<Record<string, string>> = [
  {},
  { sort: 'asc' },
  ...ACTIONS.map((action) => ({ action })),
  ...Object.keys(TARGET_TYPES).map((target_type) => ({ target_type })),
  { before: '2026-01-05' },
  { after: '2026-01-03' },
  { after: '2026-01-02', before: '2026-01-08', sort: 'asc' },
  { before: '2026-01-05T23:59:59Z' },
  { action: 'created', target_type: 'issue', sort: 'asc' },
];

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`GraphQL twins of REST (${dialect}, ${engine})`, () => {
      let server: TestServer;
      let world: World;
      before(async () => {
        server = await startServer({ dialect, config: { graphqlEngine: engine } });
        world = await seedWorld(server);
      });
      after(() => server.close());

      it('project events: every filter gives REST ids, order and flat fields', async () => {
        const { projectId, ownerToken } = world.catalog;
        for (const params of CASES) {
          const query = new URLSearchParams(params).toString();
          const rest = await get(
            server.url,
            `/api/v4/projects/${projectId}/events?per_page=100&${query}`,
            ownerToken,
          );
          const res = await gql(
            server.url,
            ProjectEventsDocument,
            { idOrPath: String(projectId), filter: toFilter(params), first: 100 },
            { token: ownerToken },
          );
          assert.equal(res.status, 200);
          assert.equal(res.body.errors, undefined);
          const events = res.body.data!.project!.events!;
          const restBody = rest.body as Array<Record<string, unknown>>;
          assert.deepEqual(
            events.nodes.map((e) => e.databaseId),
            ids(restBody),
            query,
          );
          assert.equal(events.totalCount, Number(rest.headers.get('x-total')));
          assert.deepEqual(
            events.nodes.map((e) => [
              e.actionName,
              e.targetId,
              e.targetIid,
              e.targetTitle,
              e.createdAt,
              e.author?.username,
              e.authorId,
              e.projectId,
            ]),
            restBody.map((e) => [
              e.action_name,
              e.target_id,
              e.target_iid,
              e.target_title,
              e.created_at,
              (e.author as { username: string }).username,
              e.author_id,
              e.project_id,
            ]),
          );
          // The enum value names the REST class (MERGE_REQUEST ↔ MergeRequest).
          assert.deepEqual(
            events.nodes.map((e) =>
              e.targetType
                ? TARGET_TYPES[e.targetType.toLowerCase() as keyof typeof TARGET_TYPES]
                : null,
            ),
            restBody.map((e) => e.target_type),
          );
        }
      });

      it('user and viewer events agree with REST for every viewer', async () => {
        const viewers = [undefined, ...Object.keys(world.tokens)];
        for (const viewer of viewers) {
          const token = viewer ? world.tokens[viewer] : undefined;
          for (const subject of ['owen', 'cora', 'pat', 'bob', 'alice']) {
            const expected = await restIds(server, `/api/v4/users/${subject}/events`, token);
            const res = await gql(
              server.url,
              UserEventsDocument,
              { id: subject, first: 100 },
              token ? { token } : {},
            );
            assert.equal(res.status, 200);
            assert.deepEqual(
              res.body.data!.user!.events!.nodes.map((e) => e.databaseId),
              expected,
              `${viewer} → ${subject}`,
            );
            assert.equal(res.body.data!.user!.events!.totalCount, expected.length);
          }
          if (!token) continue;
          for (const scope of [undefined, 'all'] as const) {
            const expected = await restIds(
              server,
              `/api/v4/events${scope ? '?scope=all' : ''}`,
              token,
            );
            const res: GqlResponse<ViewerEventsQuery> = await gql(
              server.url,
              ViewerEventsDocument,
              { first: 100, ...(scope ? { scope: 'ALL' as const } : {}) },
              { token },
            );
            assert.deepEqual(
              res.body.data!.events!.nodes.map((e) => e.databaseId),
              expected,
              `${viewer} scope=${scope}`,
            );
          }
        }
      });

      it('project events of private, internal and public projects agree with REST for every viewer', async () => {
        for (const viewer of [undefined, ...Object.keys(world.tokens)]) {
          const token = viewer ? world.tokens[viewer] : undefined;
          for (const [vis, id] of Object.entries(world.projects)) {
            for (const idOrPath of [String(id), `corp/${vis}`]) {
              const rest = await get(
                server.url,
                `/api/v4/projects/${encodeURIComponent(idOrPath)}/events?per_page=100`,
                token,
              );
              const res = await gql(
                server.url,
                ProjectEventsDocument,
                { idOrPath, first: 100 },
                token ? { token } : {},
              );
              assert.equal(res.status, 200);
              if (rest.status === 404) {
                assert.equal(res.body.data!.project, null, `${viewer} ${vis}`);
                assert.deepEqual(
                  res.body.errors!.map((e) => [e.message, e.extensions?.code]),
                  [['404 Project Not Found', 'NOT_FOUND']],
                );
              } else {
                assert.equal(rest.status, 200);
                assert.deepEqual(
                  res.body.data!.project!.events!.nodes.map((e) => e.databaseId),
                  ids(rest.body),
                  `${viewer} ${vis}`,
                );
              }
            }
          }
        }
      });

      it('a missing user is NOT_FOUND like REST 404; a private profile is an empty list', async () => {
        const missing = await gql(server.url, UserEventsDocument, { id: 'ghost' });
        assert.deepEqual(missing.body, {
          errors: [
            {
              message: '404 User Not Found',
              locations: [{ line: 2, column: 3 }],
              path: ['user'],
              extensions: { code: 'NOT_FOUND' },
            },
          ],
          data: { user: null },
        });
        const hidden = await gql(
          server.url,
          UserEventsDocument,
          { id: 'pat', first: 5 },
          { token: world.tokens.nina! },
        );
        assert.deepEqual(hidden.body.data!.user!.events!.nodes, []);
        assert.equal(hidden.body.data!.user!.events!.totalCount, 0);
        const own = await gql(
          server.url,
          UserEventsDocument,
          { id: 'pat', first: 5 },
          { token: world.tokens.pat! },
        );
        assert.equal(own.body.data!.user!.events!.nodes.length, 5);
      });
    });
  }
}
