/**
 * The starred and followed feeds against a brute-force oracle (issue 33): random users (admins,
 * private and blocked profiles), projects of every visibility, memberships, confidential issues,
 * pushes and merge requests, stars and follows; every page of REST `scope=starred|followed` (page
 * sizes, filters, both sorts) equals the oracle's page with its totals, and GraphQL's connection
 * `events(scope: STARRED | FOLLOWED)` walks the same events. The oracle knows nothing of the
 * store: it applies domain/visibility's rules to the world as generated.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Fixtures } from '../helpers/fixtures.js';
import {
  type LiveClient,
  type Subscriber,
  liveClient,
  sleep,
  untilSubscribed,
} from '../graphql/live-support.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const LEVELS = [10, 20, 30, 40, 50] as const;
const VISIBILITIES = ['public', 'internal', 'private'] as const;
type Kind = 'issue' | 'closed' | 'push' | 'mr' | 'joined';
const KINDS: Kind[] = ['issue', 'closed', 'push', 'mr', 'joined'];

interface WorldSpec {
  users: Array<{ admin: boolean; privateProfile: boolean; blocked: boolean }>;
  projects: Array<(typeof VISIBILITIES)[number]>;
  members: Array<[number, number, number]>;
  issues: Array<{ project: number; author: number; confidential: boolean }>;
  events: Array<{ project: number; author: number; kind: Kind; issue: number; day: number }>;
  stars: Array<[number, number]>;
  follows: Array<[number, number]>;
  viewer: number;
}

const worlds: fc.Arbitrary<WorldSpec> = fc
  .record({ nUsers: fc.integer({ min: 2, max: 5 }), nProjects: fc.integer({ min: 1, max: 5 }) })
  .chain(({ nUsers, nProjects }) => {
    const user = fc.nat(nUsers - 1);
    const project = fc.nat(nProjects - 1);
    return fc.record({
      users: fc.array(
        fc.record({
          admin: fc.nat(5).map((n) => n === 0),
          privateProfile: fc.nat(3).map((n) => n === 0),
          blocked: fc.nat(4).map((n) => n === 0),
        }),
        { minLength: nUsers, maxLength: nUsers },
      ),
      projects: fc.array(fc.constantFrom(...VISIBILITIES), {
        minLength: nProjects,
        maxLength: nProjects,
      }),
      members: fc.array(fc.tuple(project, user, fc.constantFrom(...LEVELS)), { maxLength: 8 }),
      issues: fc.array(fc.record({ project, author: user, confidential: fc.boolean() }), {
        maxLength: 4,
      }),
      events: fc.array(
        fc.record({
          project,
          author: user,
          kind: fc.constantFrom(...KINDS),
          issue: fc.nat(3),
          day: fc.nat(5),
        }),
        { minLength: 10, maxLength: 40 },
      ),
      // Half of them the viewer's own (the oracle's answer would be empty too often else).
      stars: fc.array(fc.tuple(fc.oneof(user, fc.constant(-1)), project), {
        minLength: 2,
        maxLength: 10,
      }),
      follows: fc.array(fc.tuple(fc.oneof(user, fc.constant(-1)), user), {
        minLength: 2,
        maxLength: 10,
      }),
      viewer: user,
    });
  });

interface Query {
  scope: 'starred' | 'followed';
  action?: 'created' | 'pushed' | 'closed' | 'joined';
  targetType?: 'issue' | 'merge_request';
  before?: number;
  after?: number;
  sort: 'asc' | 'desc';
  perPage: number;
}

/** Mostly no filter: a filter is one of several, so listings stay long enough to page. */
const maybe = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight: 1 });

const queries: fc.Arbitrary<Query[]> = fc.array(
  fc.record({
    scope: fc.constantFrom('starred' as const, 'followed' as const),
    action: maybe(fc.constantFrom('created' as const, 'pushed' as const, 'closed' as const)),
    targetType: maybe(fc.constantFrom('issue' as const, 'merge_request' as const)),
    before: maybe(fc.integer({ min: 1, max: 6 })),
    after: maybe(fc.integer({ min: 0, max: 4 })),
    sort: fc.constantFrom('asc' as const, 'desc' as const),
    perPage: fc.constantFrom(1, 2, 3, 7, 20),
  }),
  { minLength: 2, maxLength: 4 },
);

interface OracleIssue {
  id: number;
  project: number;
  author: number;
  confidential: boolean;
}

interface OracleEvent {
  id: number;
  project: number;
  author: number;
  createdAt: number;
  action: string;
  targetType: string | null;
  issue: OracleIssue | null;
}

const day = (n: number) => new Date(T0 + n * DAY).toISOString().slice(0, 10);

for (const dialect of DIALECTS) {
  describe(`starred and followed feeds equal a brute-force oracle (${dialect})`, () => {
    let server: TestServer;
    let f: Fixtures;
    let world = 0;

    before(async () => {
      server = await startServer({ dialect });
      f = new Fixtures(server.store);
    });
    after(() => server.close());

    /** The world in the database, and the oracle's listing of a query for its viewer. */
    async function build(spec: WorldSpec, beforeEvents?: (token: string) => Promise<void>) {
      const w = ++world;
      const users: Array<{
        id: number;
        admin: boolean;
        privateProfile: boolean;
        blocked: boolean;
      }> = [];
      for (const [i, u] of spec.users.entries()) {
        // The viewer stays active: a blocked user's token is refused before any listing.
        const blocked = u.blocked && i !== spec.viewer;
        const row = await f.user(`w${w}u${i}`, {
          admin: u.admin,
          privateProfile: u.privateProfile,
          state: blocked ? 'blocked' : 'active',
        });
        users.push({ id: row.id, ...u, blocked });
      }
      const projects: Array<{ id: number; visibility: string }> = [];
      for (const [i, visibility] of spec.projects.entries()) {
        const row = await f.project(`w${w}/p${i}`, users[0]!.id, visibility);
        projects.push({ id: row.id, visibility });
      }
      const levels = new Map<string, number>();
      for (const [p, u, level] of spec.members) {
        const key = `${p}:${u}`;
        if (levels.has(key)) continue;
        levels.set(key, level);
        await f.member(projects[p]!.id, users[u]!.id, level);
      }
      const issues: OracleIssue[] = [];
      for (const i of spec.issues) {
        const row = await f.issue(
          projects[i.project]!.id,
          users[i.author]!.id,
          'I',
          i.confidential,
        );
        issues.push({
          id: row.id,
          project: i.project,
          author: i.author,
          confidential: i.confidential,
        });
      }
      const stars = new Set<string>();
      const v = spec.viewer;
      for (const [who, p] of spec.stars) {
        const u = who < 0 ? v : who;
        if (stars.has(`${u}:${p}`)) continue;
        stars.add(`${u}:${p}`);
        await server.store.db
          .insertInto('project_stars')
          .values({ user_id: users[u]!.id, project_id: projects[p]!.id, created_at: T0 })
          .execute();
      }
      const follows = new Set<string>();
      for (const [who, b] of spec.follows) {
        const a = who < 0 ? v : who;
        if (a === b || follows.has(`${a}:${b}`)) continue;
        follows.add(`${a}:${b}`);
        await server.store.db
          .insertInto('user_follows')
          .values({ follower_id: users[a]!.id, followee_id: users[b]!.id, created_at: T0 })
          .execute();
      }
      const viewer = users[v]!;
      const token = await f.token(viewer.id);
      // Subscribers take their streams before the events are written.
      await beforeEvents?.(token);
      const events: OracleEvent[] = [];
      for (const [n, e] of spec.events.entries()) {
        const projectId = projects[e.project]!.id;
        const authorId = users[e.author]!.id;
        const createdAt = T0 + e.day * DAY + n * 60_000;
        // Events about an issue are in the issue's project: pick one of this project's, if any.
        const own = issues.filter((i) => i.project === e.project);
        const issue =
          own.length > 0 && (e.kind === 'issue' || e.kind === 'closed')
            ? own[e.issue % own.length]!
            : null;
        const kind = (e.kind === 'issue' || e.kind === 'closed') && !issue ? 'joined' : e.kind;
        let row;
        if (kind === 'issue' || kind === 'closed') {
          row = await f.event({
            projectId,
            authorId,
            action: kind === 'issue' ? 'created' : 'closed',
            targetType: 'Issue',
            targetId: issue!.id,
            issueId: issue!.id,
            createdAt,
          });
        } else if (kind === 'push') {
          row = await f.event({
            projectId,
            authorId,
            action: 'pushed',
            createdAt,
            push: { commits: [{ id: 'c'.repeat(40), message: 'Fix' }] },
          });
        } else if (kind === 'mr') {
          const mr = await f.mergeRequest(projectId, authorId, 'M');
          row = await f.event({
            projectId,
            authorId,
            action: 'created',
            targetType: 'MergeRequest',
            targetId: mr.id,
            createdAt,
          });
        } else {
          row = await f.event({ projectId, authorId, action: 'joined', createdAt });
        }
        events.push({
          id: row.id,
          project: e.project,
          author: e.author,
          createdAt,
          action:
            kind === 'push'
              ? 'pushed'
              : kind === 'closed'
                ? 'closed'
                : kind === 'joined'
                  ? 'joined'
                  : 'created',
          targetType:
            kind === 'issue' || kind === 'closed'
              ? 'issue'
              : kind === 'mr'
                ? 'merge_request'
                : null,
          issue,
        });
      }
      const level = (p: number) => levels.get(`${p}:${v}`) ?? null;
      const readsProject = (p: number) => {
        const visibility = projects[p]!.visibility;
        if (visibility === 'public' || viewer.admin || level(p) !== null) return true;
        return visibility === 'internal';
      };
      const shows = (e: OracleEvent) => {
        if (!readsProject(e.project)) return false;
        if (viewer.admin) return true;
        const l = level(e.project) ?? 0;
        if (e.issue?.confidential && e.issue.author !== v && l < 20) return false;
        const code = e.action === 'pushed' || e.targetType === 'merge_request';
        return !(code && projects[e.project]!.visibility === 'private' && l < 20);
      };
      const readsProfile = (u: number) =>
        viewer.admin || (!users[u]!.blocked && !users[u]!.privateProfile);
      const oracle = (q: Query) =>
        events
          .filter((e) =>
            q.scope === 'starred'
              ? stars.has(`${v}:${e.project}`)
              : follows.has(`${v}:${e.author}`) && readsProfile(e.author),
          )
          .filter(shows)
          .filter((e) => !q.action || e.action === q.action)
          .filter((e) => !q.targetType || e.targetType === q.targetType)
          .filter((e) => q.before === undefined || e.createdAt < T0 + q.before * DAY)
          .filter((e) => q.after === undefined || e.createdAt >= T0 + (q.after + 1) * DAY)
          .map((e) => e.id)
          .sort((a, b) => (q.sort === 'asc' ? a - b : b - a));
      return { token, oracle };
    }

    function path(q: Query, page: number): string {
      const params = new URLSearchParams({ scope: q.scope, per_page: String(q.perPage) });
      params.set('page', String(page));
      params.set('sort', q.sort);
      if (q.action) params.set('action', q.action);
      if (q.targetType) params.set('target_type', q.targetType);
      if (q.before !== undefined) params.set('before', day(q.before));
      if (q.after !== undefined) params.set('after', day(q.after));
      return `/api/v4/events?${params}`;
    }

    async function restPages(q: Query, token: string, expected: number[]) {
      const pages = Math.max(1, Math.ceil(expected.length / q.perPage));
      // Every page, and one past the end.
      for (let page = 1; page <= pages + 1; page++) {
        const response = await fetch(`${server.url}${path(q, page)}`, {
          headers: { 'private-token': token },
        });
        const where = `${path(q, page)}`;
        assert.equal(response.status, 200, where);
        const body = (await response.json()) as Array<{ id: number }>;
        const want = expected.slice((page - 1) * q.perPage, page * q.perPage);
        assert.deepEqual(
          body.map((e) => e.id),
          want,
          where,
        );
        assert.equal(response.headers.get('x-total'), String(expected.length), where);
        assert.equal(response.headers.get('x-total-pages'), String(pages), where);
        assert.equal(response.headers.get('x-page'), String(page), where);
        assert.equal(
          response.headers.get('x-next-page'),
          page < pages ? String(page + 1) : '',
          where,
        );
      }
    }

    type Connection = {
      totalCount: number;
      nodes: Array<{ databaseId: number }>;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };

    /**
     * Walks a connection forward page by page: `field` is the connection's selection with its
     * arguments, `pick` finds it in the answer.
     */
    async function walkConnection(
      token: string,
      field: (after: string) => string,
      pick: (data: Record<string, unknown>) => Connection,
      expected: number[],
      what: string,
      closing = '',
    ) {
      const ids: number[] = [];
      let cursor: string | null = null;
      for (let guard = 0; guard < 100; guard++) {
        const selection = '{ totalCount nodes { databaseId } pageInfo { hasNextPage endCursor } }';
        const query = `query($after: String) { ${field('after: $after')} ${selection}${closing} }`;
        const response = await fetch(`${server.url}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'private-token': token },
          body: JSON.stringify({ query, variables: { after: cursor } }),
        });
        const body = (await response.json()) as {
          data?: Record<string, unknown>;
          errors?: unknown;
        };
        assert.equal(body.errors, undefined, JSON.stringify(body.errors));
        const connection = pick(body.data!);
        assert.equal(connection.totalCount, expected.length, what);
        ids.push(...connection.nodes.map((n) => n.databaseId));
        if (!connection.pageInfo.hasNextPage) break;
        cursor = connection.pageInfo.endCursor;
      }
      assert.deepEqual(ids, expected, what);
    }

    async function graphqlWalk(q: Query, token: string, expected: number[]) {
      const scope = q.scope.toUpperCase();
      const filter = [
        `sort: ${q.sort.toUpperCase()}`,
        q.action ? `action: ${q.action.toUpperCase()}` : '',
        q.targetType ? `targetType: ${q.targetType.toUpperCase()}` : '',
        q.before !== undefined ? `before: "${day(q.before)}"` : '',
        q.after !== undefined ? `after: "${day(q.after)}"` : '',
      ].join(' ');
      const page = `first: ${q.perPage}, filter: { ${filter} }`;
      await walkConnection(
        token,
        (after) => `events(scope: ${scope}, ${page}, ${after})`,
        (data) => data.events as Connection,
        expected,
        `events(scope: ${scope}) ${filter}`,
      );
      if (q.scope !== 'followed') return;
      // GitLab's form: the same listing (target ALL), under currentUser.activity.
      await walkConnection(
        token,
        (after) => `currentUser { activity { followedUsersActivity(target: ALL, ${page}, ${after})`,
        (data) =>
          (data.currentUser as { activity: { followedUsersActivity: Connection } }).activity
            .followedUsersActivity,
        expected,
        `followedUsersActivity ${filter}`,
        ' } }',
      );
    }

    it('every REST page and the GraphQL connection equal the oracle', async () => {
      await fc.assert(
        fc.asyncProperty(worlds, queries, async (spec, qs) => {
          const { token, oracle } = await build(spec);
          for (const q of qs) {
            const expected = oracle(q);
            await restPages(q, token, expected);
            await graphqlWalk(q, token, expected);
          }
        }),
        { numRuns: dialect === 'sqlite' ? 25 : 15 },
      );
    });

    it('the subscription streams eventCreated(scope: STARRED | FOLLOWED) equal the oracle', async () => {
      await fc.assert(
        fc.asyncProperty(worlds, async (spec) => {
          let client: LiveClient | undefined;
          const streams: Partial<Record<Query['scope'], Subscriber>> = {};
          try {
            const { oracle } = await build(spec, async (token) => {
              client = liveClient(server.url, { 'PRIVATE-TOKEN': token });
              for (const scope of ['starred', 'followed'] as const) {
                streams[scope] = client.subscribe(
                  `subscription { eventCreated(scope: ${scope.toUpperCase()}) { databaseId } }`,
                );
              }
              await untilSubscribed(server.services, 2);
            });
            for (const scope of ['starred', 'followed'] as const) {
              // A stream is in id order: the oracle's oldest-first listing, unpaged.
              const expected = oracle({ scope, sort: 'asc', perPage: 100 });
              const stream = streams[scope]!;
              await stream.waitFor(expected.length, 10_000);
              // Nothing more arrives: the other events were not the stream's.
              await sleep(400);
              assert.deepEqual(stream.errors, []);
              assert.deepEqual(
                stream.events.map((e) => e.databaseId),
                expected,
                `eventCreated(scope: ${scope.toUpperCase()})`,
              );
            }
          } finally {
            await client?.dispose();
            for (let i = 0; i < 500 && server.services.live.size > 0; i++) await sleep(10);
          }
        }),
        { numRuns: 6 },
      );
    });
  });
}
