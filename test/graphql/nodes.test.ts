/**
 * Every object a client caches has an `id` (issue 14): issues, merge requests, milestones, notes
 * and snippets are nodes, `node(id:)` finds them under the visibility of the events that show
 * them, and GitLab's spellings (`gid://gitlab/<Type>/<id>`, `project(fullPath:)`,
 * `user(username:)`) work unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { type NodeTypeName, encodeCursor, toGlobalId } from '../../src/graphql/ids.js';
import { ENGINES, codes, raw } from './client.js';

interface Seeded {
  alice: string;
  bob: string;
  aliceId: number;
  publicId: number;
  privateId: number;
  ids: Record<string, number>;
}

const T = '2026-01-01T00:00:00.000Z';

async function seed(server: TestServer): Promise<Seeded> {
  const f = new Fixtures(server.store);
  const db = server.store.db;
  const alice = await f.user('alice');
  const bob = await f.user('bob');
  const pub = await f.project('acme/pub', alice.id, 'public');
  const priv = await f.project('acme/priv', alice.id, 'private');
  await f.member(pub.id, alice.id, 50);
  await f.member(priv.id, alice.id, 50);
  const issue = await f.issue(pub.id, alice.id, 'Open issue');
  const secret = await f.issue(pub.id, alice.id, 'Secret issue', true);
  const hiddenIssue = await f.issue(priv.id, alice.id, 'Private issue');
  const mr = await f.mergeRequest(pub.id, alice.id, 'Fix');
  const note = await f.note(pub.id, alice.id, { type: 'Issue', id: issue.id }, 'Seen');
  const secretNote = await f.note(pub.id, alice.id, { type: 'Issue', id: secret.id }, 'Psst');
  const milestone = await db
    .insertInto('milestones')
    .values({ project_id: pub.id, iid: 1, title: 'v1', created_at: Date.parse(T) })
    .returningAll()
    .executeTakeFirstOrThrow();
  const snippet = await db
    .insertInto('snippets')
    .values({
      project_id: pub.id,
      title: 'Script',
      author_id: alice.id,
      visibility: 'public',
      created_at: Date.parse(T),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  // One event per target, so the ids can be read off `Event.target` too.
  for (const [targetType, targetId, issueId] of [
    ['Issue', issue.id, issue.id],
    ['Issue', secret.id, secret.id],
    ['MergeRequest', mr.id, null],
    ['Note', note.id, issue.id],
    ['Note', secretNote.id, secret.id],
    ['Milestone', milestone.id, null],
    ['Snippet', snippet.id, null],
  ] as const) {
    await f.event({
      projectId: pub.id,
      authorId: alice.id,
      action: 'created',
      targetType,
      targetId,
      issueId,
      createdAt: T,
    });
  }
  return {
    alice: await f.token(alice.id, ['read_api']),
    bob: await f.token(bob.id, ['read_api']),
    aliceId: alice.id,
    publicId: pub.id,
    privateId: priv.id,
    ids: {
      issue: issue.id,
      secret: secret.id,
      hiddenIssue: hiddenIssue.id,
      mr: mr.id,
      note: note.id,
      secretNote: secretNote.id,
      milestone: milestone.id,
      snippet: snippet.id,
    },
  };
}

const NODE = `query N($id: ID!) { node(id: $id) { __typename id ... on Issue { databaseId }
  ... on MergeRequest { databaseId } ... on Milestone { databaseId } ... on Note { databaseId }
  ... on Snippet { databaseId } } }`;

type NodeResult = { node: { __typename: string; id: string; databaseId: number } | null };

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`GraphQL nodes and GitLab's id forms (${dialect}, ${engine})`, () => {
      let server: TestServer;
      let s: Seeded;
      before(async () => {
        server = await startServer({ dialect, config: { graphqlEngine: engine } });
        s = await seed(server);
      });
      after(() => server.close());

      const node = (id: string, token?: string) =>
        raw<NodeResult>(server.url, NODE, { id }, token ? { token } : {});

      it('gives every event target an id that node(id:) resolves back', async () => {
        const res = await raw<{
          project: {
            events: { nodes: Array<{ target: { __typename: string; id: string } | null }> };
          };
        }>(
          server.url,
          `{ project(idOrPath: "${s.publicId}") { events { nodes { target { __typename ... on Node { id } } } } } }`,
          undefined,
          { token: s.alice },
        );
        assert.equal(res.body.errors, undefined);
        const targets = res.body.data!.project.events.nodes.map((n) => n.target!);
        assert.deepEqual(targets.map((t) => t.__typename).sort(), [
          'Issue',
          'Issue',
          'MergeRequest',
          'Milestone',
          'Note',
          'Note',
          'Snippet',
        ]);
        for (const target of targets) {
          const found = await node(target.id, s.alice);
          assert.equal(found.status, 200);
          assert.equal(found.body.data!.node!.__typename, target.__typename);
          assert.equal(found.body.data!.node!.id, target.id);
        }
      });

      it('accepts gid://gitlab/<Type>/<id> and applies the visibility of events', async () => {
        const gid = (type: string, id: number) => `gid://gitlab/${type}/${id}`;
        const visible: Array<[string, number]> = [
          ['Issue', s.ids.issue!],
          ['MergeRequest', s.ids.mr!],
          ['Milestone', s.ids.milestone!],
          ['Note', s.ids.note!],
          ['Snippet', s.ids.snippet!],
        ];
        for (const token of [undefined, s.bob, s.alice]) {
          for (const [type, id] of visible) {
            const res = await node(gid(type, id), token);
            assert.equal(res.body.data!.node!.__typename, type);
            assert.equal(res.body.data!.node!.databaseId, id);
          }
        }
        // Hidden from others: a private project's issue, a confidential issue and its notes.
        const hidden: Array<[string, number]> = [
          ['Issue', s.ids.hiddenIssue!],
          ['Issue', s.ids.secret!],
          ['Note', s.ids.secretNote!],
          ['Issue', 999_999],
        ];
        for (const token of [undefined, s.bob]) {
          for (const [type, id] of hidden) {
            const res = await node(gid(type, id), token);
            assert.deepEqual(res.body, { data: { node: null } }, `${type} ${id}`);
          }
        }
        // …and shown to the author (a Reporter+ member here).
        for (const [type, id] of hidden.slice(0, 3)) {
          const res = await node(gid(type, id), s.alice);
          assert.equal(res.body.data!.node!.databaseId, id);
        }
        // GitLab's spelling of the project's and the user's own ids too.
        const both = await raw<{ p: { fullPath: string }; u: { username: string } }>(
          server.url,
          `{ p: project(idOrPath: "${gid('Project', s.publicId)}") { fullPath }
             u: user(id: "${gid('User', s.aliceId)}") { username } }`,
        );
        assert.deepEqual(both.body, {
          data: { p: { fullPath: 'acme/pub' }, u: { username: 'alice' } },
        });
      });

      it('takes project(fullPath:) and user(username:) as GitLab does', async () => {
        const res = await raw(
          server.url,
          '{ project(fullPath: "acme/pub") { fullPath } user(username: "alice") { username } }',
        );
        assert.deepEqual(res.body, {
          data: { project: { fullPath: 'acme/pub' }, user: { username: 'alice' } },
        });
        const bad = await raw(
          server.url,
          '{ project(fullPath: "acme/pub", idOrPath: "acme/pub") { fullPath } user { username } }',
        );
        assert.equal(bad.status, 200);
        assert.deepEqual(bad.body.data, { project: null, user: null });
        assert.deepEqual(codes(bad.body), ['BAD_USER_INPUT', 'BAD_USER_INPUT']);
        assert.deepEqual(
          bad.body.errors!.map((e) => e.message),
          [
            'exactly one of idOrPath or fullPath must be given',
            'exactly one of id or username must be given',
          ],
        );
      });

      it('answers ids and cursors beyond their id range as not found or bad input', async () => {
        // Users and projects keep 32-bit ids; events, issues, merge requests and notes are 64-bit
        // (migration 026) up to 2^53 − 1, past which a JSON number is no longer exact.
        const big = 2 ** 31;
        const huge = 2 ** 53;
        const cases: Array<[NodeTypeName, number]> = [
          ['User', big],
          ['Project', big],
          ['Event', huge],
          ['Issue', huge],
          ['MergeRequest', huge],
          ['Note', huge],
        ];
        for (const [type, id] of cases) {
          for (const value of [toGlobalId(type, id), `gid://gitlab/${type}/${id}`]) {
            const res = await node(value, s.alice);
            assert.deepEqual(
              codes(res.body),
              ['BAD_USER_INPUT'],
              `${value}: ${JSON.stringify(res.body)}`,
            );
          }
        }
        // The largest ids are valid ones that name nothing.
        for (const [type, id] of [
          ['Issue', 2 ** 31 - 1],
          ['User', 2 ** 31 - 1],
          ['Event', big],
          ['Issue', big],
          ['Note', big],
          ['MergeRequest', Number.MAX_SAFE_INTEGER],
          ['Event', Number.MAX_SAFE_INTEGER],
        ] as Array<[NodeTypeName, number]>) {
          const res = await node(toGlobalId(type, id), s.alice);
          assert.deepEqual(res.body, { data: { node: null } }, `${type} ${id}`);
        }
        const lookups = await raw<{ user: null; project: null }>(
          server.url,
          `{ user(id: "${big}") { id } project(idOrPath: "${big}") { id } }`,
          undefined,
          { token: s.alice },
        );
        assert.deepEqual(codes(lookups.body), ['NOT_FOUND', 'NOT_FOUND']);
        const events = (args: string) =>
          raw<{
            project: {
              events: {
                nodes: unknown[];
                pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean };
              };
            };
          }>(
            server.url,
            `{ project(idOrPath: "${s.publicId}") { events(${args}) { nodes { id } pageInfo { hasNextPage hasPreviousPage } } } }`,
            undefined,
            { token: s.alice },
          );
        for (const args of [
          `first: 1, after: "${encodeCursor(huge)}"`,
          `last: 1, before: "${encodeCursor(huge)}"`,
        ]) {
          assert.deepEqual(codes((await events(args)).body), ['BAD_USER_INPUT'], args);
        }
        // The largest cursors are valid ones. Newest first, every event lies after them and none
        // before them.
        for (const last of [2 ** 31 - 1, big, Number.MAX_SAFE_INTEGER]) {
          const afterLast = await events(`first: 1, after: "${encodeCursor(last)}"`);
          assert.equal(afterLast.body.errors, undefined);
          assert.equal(afterLast.body.data!.project.events.nodes.length, 1);
          assert.deepEqual(afterLast.body.data!.project.events.pageInfo, {
            hasNextPage: true,
            hasPreviousPage: false,
          });
          const beforeLast = await events(`first: 1, before: "${encodeCursor(last)}"`);
          assert.deepEqual(beforeLast.body, {
            data: {
              project: {
                events: { nodes: [], pageInfo: { hasNextPage: false, hasPreviousPage: false } },
              },
            },
          });
        }
      });
    });
  }
}
