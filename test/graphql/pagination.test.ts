/**
 * Relay connections over keyset cursors: walking forward and backward visits REST's order exactly,
 * page flags are right at both ends, bad page arguments have their own codes, and totalCount is
 * capped as REST caps X-Total.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProjectEventsDocument } from './generated/graphql.js';
import { insertEvents } from '../helpers/bulk.js';
import { type Catalog, seedCatalog } from '../helpers/catalog.js';
import { get, ids } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { ENGINES, codes, gql } from './client.js';

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`GraphQL pagination (${dialect}, ${engine})`, () => {
      let server: TestServer;
      let catalog: Catalog;
      let restOrder: number[];
      before(async () => {
        server = await startServer({ dialect, config: { graphqlEngine: engine } });
        catalog = await seedCatalog(server.store);
        const rest = await get(
          server.url,
          `/api/v4/projects/${catalog.projectId}/events?per_page=100`,
          catalog.ownerToken,
        );
        restOrder = ids(rest.body);
      });
      after(() => server.close());

      const page = (vars: {
        first?: number;
        after?: string;
        last?: number;
        before?: string;
        sort?: 'ASC' | 'DESC';
      }) => {
        const { sort, ...rest } = vars;
        return gql(
          server.url,
          ProjectEventsDocument,
          { idOrPath: String(catalog.projectId), ...rest, ...(sort ? { filter: { sort } } : {}) },
          { token: catalog.ownerToken },
        );
      };

      it('walks forward with first/after in REST order, then backward with last/before', async () => {
        const seen: number[] = [];
        let cursor: string | undefined;
        let hasNext = true;
        let pages = 0;
        while (hasNext) {
          const res = await page({ first: 4, ...(cursor ? { after: cursor } : {}) });
          const events = res.body.data!.project!.events!;
          seen.push(...events.nodes.map((e) => e.databaseId));
          assert.deepEqual(
            events.edges.map((e) => e.node.databaseId),
            events.nodes.map((e) => e.databaseId),
          );
          assert.equal(events.pageInfo.hasPreviousPage, pages > 0);
          assert.equal(events.pageInfo.startCursor, events.edges[0]!.cursor);
          assert.equal(events.pageInfo.endCursor, events.edges.at(-1)!.cursor);
          hasNext = events.pageInfo.hasNextPage;
          cursor = events.pageInfo.endCursor!;
          pages++;
        }
        assert.deepEqual(seen, restOrder);
        assert.equal(pages, Math.ceil(restOrder.length / 4));

        const back: number[] = [];
        let beforeCursor: string | undefined;
        let hasPrevious = true;
        while (hasPrevious) {
          const res = await page({ last: 5, ...(beforeCursor ? { before: beforeCursor } : {}) });
          const events = res.body.data!.project!.events!;
          back.unshift(...events.nodes.map((e) => e.databaseId));
          assert.equal(events.pageInfo.hasNextPage, beforeCursor !== undefined);
          hasPrevious = events.pageInfo.hasPreviousPage;
          beforeCursor = events.pageInfo.startCursor!;
        }
        assert.deepEqual(back, restOrder);
      });

      it('ascending order pages like REST sort=asc', async () => {
        const asc = ids(
          (
            await get(
              server.url,
              `/api/v4/projects/${catalog.projectId}/events?per_page=100&sort=asc`,
              catalog.ownerToken,
            )
          ).body,
        );
        const first = await page({ first: 10, sort: 'ASC' });
        const next = await page({
          first: 100,
          sort: 'ASC',
          after: first.body.data!.project!.events!.pageInfo.endCursor!,
        });
        assert.deepEqual(
          [
            ...first.body.data!.project!.events!.nodes,
            ...next.body.data!.project!.events!.nodes,
          ].map((e) => e.databaseId),
          asc,
        );
        assert.equal(next.body.data!.project!.events!.pageInfo.hasNextPage, false);
      });

      it('defaults to 20 and refuses bad page arguments with their own codes', async () => {
        const res = await page({});
        assert.equal(res.body.data!.project!.events!.nodes.length, 20);
        assert.equal(res.body.data!.project!.events!.pageInfo.hasNextPage, true);

        // A bad page argument is an error of the connection alone: the project is still there.
        const cases: Array<[Parameters<typeof page>[0], string, string]> = [
          [{ first: 101 }, 'PAGE_SIZE_EXCEEDED', 'first must be at most 100'],
          [{ last: 1000 }, 'PAGE_SIZE_EXCEEDED', 'last must be at most 100'],
          [{ first: 0 }, 'BAD_USER_INPUT', 'first must be at least 1'],
          [{ first: -3 }, 'BAD_USER_INPUT', 'first must be at least 1'],
          [{ first: 2, last: 2 }, 'BAD_USER_INPUT', 'first and last cannot be combined'],
        ];
        const project = { id: res.body.data!.project!.id, fullPath: 'acme/catalog', events: null };
        for (const [vars, code, message] of cases) {
          const bad = await page(vars);
          assert.equal(bad.status, 200, JSON.stringify(vars));
          assert.deepEqual(bad.body, {
            errors: [
              {
                message,
                locations: [{ line: 5, column: 5 }],
                path: ['project', 'events'],
                extensions: { code },
              },
            ],
            data: { project },
          });
        }
        for (const cursor of [
          'nope',
          'ZXZlbnQ6MA',
          Buffer.from('event:12x').toString('base64url'),
          'ZXZlbnQ6MQ==',
        ]) {
          const bad = await page({ first: 2, after: cursor });
          assert.equal(bad.status, 200);
          assert.deepEqual(bad.body.data!.project, project);
          assert.deepEqual(codes(bad.body), ['BAD_USER_INPUT']);
          assert.equal(bad.body.errors![0]!.message, 'after is not a valid cursor');
        }
      });
    });
  }
}

describe('GraphQL totalCount cap (sqlite)', () => {
  let server: TestServer;
  let catalog: Catalog;
  before(async () => {
    server = await startServer({});
    catalog = await seedCatalog(server.store);
    const base = Date.UTC(2026, 1, 1);
    await insertEvents(
      server.store,
      Array.from({ length: 10_001 }, (_, i) => ({
        projectId: catalog.projectId,
        authorId: catalog.ownerId,
        action: 'joined' as const,
        createdAt: base + i,
      })),
    );
  });
  after(() => server.close());

  it('is null above 10,000 like REST omits X-Total, and exact at or below it', async () => {
    const rest = await get(
      server.url,
      `/api/v4/projects/${catalog.projectId}/events`,
      catalog.ownerToken,
    );
    assert.equal(rest.headers.get('x-total'), null);
    const all = await gql(
      server.url,
      ProjectEventsDocument,
      { idOrPath: String(catalog.projectId), first: 1 },
      { token: catalog.ownerToken },
    );
    assert.equal(all.body.data!.project!.events!.totalCount, null);
    const some = await gql(
      server.url,
      ProjectEventsDocument,
      { idOrPath: String(catalog.projectId), first: 1, filter: { action: 'CLOSED' } },
      { token: catalog.ownerToken },
    );
    assert.equal(some.body.data!.project!.events!.totalCount, 2);
  });
});
