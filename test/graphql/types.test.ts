/**
 * Consistent types and visible cost (issue 14): union members agree on `projectId`, commit times
 * are `Time`, push data carries REST's `user_id`/`user_name`/`ref_count` and deprecates its
 * duplicate names, events and users carry REST's `imported`/`locked`, and `queryComplexity`
 * reports the number the gate checks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Catalog, seedCatalog } from '../helpers/catalog.js';
import { get } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { ENGINES, raw } from './client.js';

interface Row {
  databaseId: number;
  imported: boolean;
  author: { locked: boolean } | null;
  target: { __typename: string; projectId?: number | null } | null;
  payload: {
    __typename: string;
    userId?: number;
    userName?: string;
    refCount?: number | null;
    commits?: Array<{ timestamp: string }>;
  } | null;
}

const EVENTS = `query E($id: ID!) {
  project(idOrPath: $id) {
    events(first: 100) {
      nodes {
        databaseId
        imported
        author { locked }
        target {
          __typename
          ... on Issue { projectId }
          ... on MergeRequest { projectId }
          ... on Milestone { projectId }
          ... on Note { projectId }
          ... on Snippet { projectId }
        }
        payload {
          __typename
          ... on PushData { userId userName refCount commits { timestamp } }
        }
      }
    }
  }
}`;

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`GraphQL types agree with REST (${dialect}, ${engine})`, () => {
      let server: TestServer;
      let catalog: Catalog;
      before(async () => {
        server = await startServer({ dialect, config: { graphqlEngine: engine } });
        catalog = await seedCatalog(server.store);
      });
      after(() => server.close());

      it('selects projectId across the target union and matches REST field by field', async () => {
        const res = await raw<{ project: { events: { nodes: Row[] } } }>(
          server.url,
          EVENTS,
          { id: String(catalog.projectId) },
          { token: catalog.ownerToken },
        );
        assert.equal(res.status, 200);
        assert.equal(res.body.errors, undefined);
        const rest = (
          await get(
            server.url,
            `/api/v4/projects/${catalog.projectId}/events?per_page=100`,
            catalog.ownerToken,
          )
        ).body as Array<Record<string, unknown>>;
        const nodes = res.body.data!.project.events.nodes;
        assert.deepEqual(
          nodes.map((n) => n.databaseId),
          rest.map((e) => e.id),
        );
        const kinds = new Set<string>();
        for (const [i, node] of nodes.entries()) {
          const e = rest[i]!;
          assert.equal(node.imported, e.imported);
          assert.equal(node.author?.locked, (e.author as { locked: boolean }).locked);
          if (node.target && 'projectId' in node.target) {
            kinds.add(node.target.__typename);
            assert.equal(node.target.projectId, catalog.projectId);
          }
          if (node.payload?.__typename === 'PushData') {
            const data = e.data as { user_id: number; user_name: string; commits: unknown[] };
            const pushData = e.push_data as { ref_count: number | null };
            assert.equal(node.payload.userId, data.user_id);
            assert.equal(node.payload.userName, data.user_name);
            assert.equal(node.payload.refCount, pushData.ref_count);
            // Time: UTC with milliseconds, the same instant REST prints with an offset.
            const commits = data.commits as Array<{ timestamp: string }>;
            assert.deepEqual(
              node.payload.commits!.map((c) => c.timestamp),
              commits.map((c) => new Date(c.timestamp).toISOString()),
            );
            assert.match(node.payload.commits![0]!.timestamp, /^\d{4}-\d\d-\d\dT.*\.\d{3}Z$/);
            kinds.add('PushData');
          }
        }
        assert.deepEqual([...kinds].sort(), [
          'Issue',
          'MergeRequest',
          'Milestone',
          'Note',
          'PushData',
          'Snippet',
        ]);
      });

      it('deprecates the duplicate names of PushData without removing them', async () => {
        const res = await raw<{
          __type: { fields: Array<{ name: string; isDeprecated: boolean; type: unknown }> };
        }>(
          server.url,
          '{ __type(name: "PushData") { fields(includeDeprecated: true) { name isDeprecated } } }',
        );
        const deprecated = res.body
          .data!.__type.fields.filter((f) => f.isDeprecated)
          .map((f) => f.name)
          .sort();
        assert.deepEqual(deprecated, ['after', 'before', 'ref']);
        const names = res.body.data!.__type.fields.map((f) => f.name);
        for (const name of ['refName', 'commitFrom', 'commitTo', 'userId', 'userName', 'refCount'])
          assert.ok(names.includes(name), name);
      });

      it('queryComplexity reports the score the gate computes and the caller’s limit', async () => {
        const anonymous = await raw(server.url, '{ queryComplexity { score limit } }');
        assert.deepEqual(anonymous.body, {
          data: { queryComplexity: { score: 3, limit: 5000 } },
        });
        // 3 + events (1 + 10 × (nodes 1 + id 1)) = 24.
        const priced = await raw(
          server.url,
          '{ queryComplexity { score limit } events(first: 10) { nodes { id } } }',
          undefined,
          { token: catalog.ownerToken },
        );
        assert.equal(priced.status, 200);
        assert.deepEqual((priced.body.data as { queryComplexity: unknown }).queryComplexity, {
          score: 24,
          limit: 10000,
        });
        // The same pricing is what the gate refuses by.
        const over = await raw(
          server.url,
          '{ queryComplexity { score } events(first: 100) { nodes { author { events(first: 100) { nodes { id } } } } } }',
          undefined,
          { token: catalog.ownerToken },
        );
        assert.equal(over.status, 400);
        assert.equal(
          over.body.errors![0]!.message,
          'Query has complexity of 20303, which exceeds max complexity of 10000',
        );
      });
    });
  }
}
