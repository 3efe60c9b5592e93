/**
 * Ids past 2^31 (issue 34, item 3): with the sequences of events, issues and notes moved past the
 * 32-bit range, what the API writes gets such ids, and they round-trip exactly through REST
 * (`/events`, `/projects/:id/events`), GraphQL node ids and cursors. On PostgreSQL the columns are
 * bigint (migration 026) and the background loop makes the partition those ids go to (027); on
 * SQLite integers are 64-bit anyway. Past 2^53 (where JSON numbers stop being exact) ids and
 * cursors are still refused, as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { encodeCursor, toGlobalId } from '../../src/graphql/ids.js';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { codes, raw } from '../graphql/client.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { api } from '../writes/helpers.js';

const START = 2 ** 31 + 1_000;

interface EventJson {
  id: number;
  action_name: string;
  target_id: number | null;
  target_iid: number | null;
  target_type: string | null;
  note?: { id: number; noteable_id: number };
}

for (const dialect of DIALECTS) {
  describe(`ids past 2^31 (${dialect})`, () => {
    let server: TestServer;
    let token = '';
    let projectId = 0;
    let issue: { id: number; iid: number };
    let note: { id: number };

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          projectId = (await f.project('acme/big', alice.id, 'public')).id;
          await f.member(projectId, alice.id, ACCESS_LEVELS.owner);
          token = await f.token(alice.id, ['api']);
          for (const table of ['events', 'issues', 'notes']) {
            if (dialect === 'postgres') {
              await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), ${START}::bigint)`.execute(
                store.db,
              );
            } else {
              await sql`DELETE FROM sqlite_sequence WHERE name = ${table}`.execute(store.db);
              await sql`INSERT INTO sqlite_sequence (name, seq) VALUES (${table}, ${START})`.execute(
                store.db,
              );
            }
          }
        },
      });
      if (dialect === 'postgres') {
        // No partition holds these ids until the background loop's first run makes one.
        const deadline = Date.now() + 15_000;
        const covered = async () =>
          (await server.store.events.partitions()).some(
            (p) => p.lower <= START + 1 && START + 1 < p.upper,
          );
        while (!(await covered())) {
          assert.ok(Date.now() < deadline, 'the background loop made no partition for the ids');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      const created = await api(server, 'POST', `/projects/${projectId}/issues`, token, {
        title: 'big',
      });
      assert.equal(created.status, 201, created.text);
      issue = created.body as { id: number; iid: number };
      const commented = await api(
        server,
        'POST',
        `/projects/${projectId}/issues/${issue.iid}/notes`,
        token,
        { body: 'past the 32-bit range' },
      );
      assert.equal(commented.status, 201, commented.text);
      note = commented.body as { id: number };
    });

    after(() => server?.close());

    it('writes issues and notes with ids past 2^31', () => {
      assert.equal(issue.id, START + 1);
      assert.equal(issue.iid, 1);
      assert.equal(note.id, START + 1);
    });

    it('lists the events with their exact ids over REST', async () => {
      for (const path of [`/projects/${projectId}/events`, '/events']) {
        const res = await api(server, 'GET', path, token);
        assert.equal(res.status, 200, res.text);
        // Byte for byte: the numbers are written exactly, not rounded or quoted.
        assert.match(res.text, new RegExp(`"id":${START + 2},`));
        const events = res.body as EventJson[];
        assert.deepEqual(
          events.map((e) => [e.id, e.action_name, e.target_type, e.target_id, e.target_iid]),
          [
            [START + 2, 'commented on', 'Note', START + 1, START + 1],
            [START + 1, 'opened', 'Issue', START + 1, 1],
          ],
          path,
        );
        assert.equal(events[0]!.note?.id, START + 1);
        assert.equal(events[0]!.note?.noteable_id, START + 1);
      }
    });

    it('round-trips node ids and cursors over GraphQL', async () => {
      type Page = {
        project: {
          events: {
            nodes: Array<{ id: string; databaseId: number; targetId: number | null }>;
            pageInfo: { endCursor: string; hasNextPage: boolean };
          };
        };
      };
      const page = (args: string) =>
        raw<Page>(
          server.url,
          `{ project(idOrPath: "${projectId}") { events(${args}) {
              nodes { id databaseId targetId } pageInfo { endCursor hasNextPage } } } }`,
          undefined,
          { token },
        );
      const first = await page('first: 1');
      assert.equal(first.body.errors, undefined, JSON.stringify(first.body));
      const events = first.body.data!.project.events;
      assert.deepEqual(events.nodes, [
        { id: toGlobalId('Event', START + 2), databaseId: START + 2, targetId: START + 1 },
      ]);
      assert.equal(events.pageInfo.endCursor, encodeCursor(START + 2));
      assert.equal(events.pageInfo.hasNextPage, true);
      const second = await page(`first: 1, after: "${events.pageInfo.endCursor}"`);
      assert.deepEqual(second.body.data!.project.events.nodes, [
        { id: toGlobalId('Event', START + 1), databaseId: START + 1, targetId: START + 1 },
      ]);
      assert.equal(second.body.data!.project.events.pageInfo.hasNextPage, false);

      const node = (id: string) =>
        raw<{ node: { __typename: string; databaseId: number } | null }>(
          server.url,
          `query ($id: ID!) { node(id: $id) {
             __typename ... on Event { databaseId } ... on Issue { databaseId }
             ... on Note { databaseId } } }`,
          { id },
          { token },
        );
      for (const [type, id] of [
        ['Event', START + 2],
        ['Issue', START + 1],
        ['Note', START + 1],
      ] as const) {
        for (const gid of [toGlobalId(type, id), `gid://gitlab/${type}/${id}`]) {
          const res = await node(gid);
          assert.deepEqual(res.body, { data: { node: { __typename: type, databaseId: id } } }, gid);
        }
      }
    });

    it('still refuses ids and cursors past 2^53', async () => {
      const huge = 2 ** 53;
      const res = await raw(
        server.url,
        `query ($id: ID!) { node(id: $id) { id } }`,
        { id: toGlobalId('Event', huge) },
        { token },
      );
      assert.deepEqual(codes(res.body), ['BAD_USER_INPUT']);
      const cursor = await raw(
        server.url,
        `{ project(idOrPath: "${projectId}") { events(first: 1, after: "${encodeCursor(huge)}") { nodes { id } } } }`,
        undefined,
        { token },
      );
      assert.deepEqual(codes(cursor.body), ['BAD_USER_INPUT']);
      // A project id past the 32-bit range names nothing: GitLab's 404, as before.
      const missing = await api(server, 'GET', `/projects/${2 ** 31}/events`, token);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { message: '404 Project Not Found' });
    });
  });
}
