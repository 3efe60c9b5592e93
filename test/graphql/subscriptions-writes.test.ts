/**
 * The done-when of live activity: alice subscribes with the graphql-ws client, writes arrive
 * through REST (`POST …/issues`) and through a GraphQL mutation (`createIssue`), and both reach her
 * within a second, on both engines and both dialects; bob, not a member of the private project,
 * receives neither, while a note he may write on the public project reaches alice too.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { call } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { seedTwoProjects } from '../helpers/two-projects.js';
import { ENGINES } from './client.js';
import {
  EVENT_FIELDS,
  type LiveClient,
  liveClient,
  sleep,
  untilSubscribed,
} from './live-support.js';

const ALL = `subscription { eventCreated { ${EVENT_FIELDS} } }`;
const BY_USER = `subscription($u: ID) { eventCreated(user: $u) { ${EVENT_FIELDS} } }`;

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`writes reach subscribers (${engine}, ${dialect})`, () => {
      let server: TestServer;
      let tokens: { alice: string; bob: string };
      const clients: LiveClient[] = [];
      before(async () => {
        server = await startServer({
          dialect,
          config: { graphqlEngine: engine },
          seed: async (store) => {
            // Bob writes too: an issue on the public project.
            ({ tokens } = await seedTwoProjects(store, { events: 0, scopes: { bob: ['api'] } }));
          },
        });
      });
      afterEach(async () => {
        await Promise.all(clients.splice(0).map((c) => c.dispose()));
      });
      after(() => server.close());

      it('delivers a REST write and a mutation within a second, to those who may see them', async () => {
        const alice = liveClient(server.url, { authorization: `Bearer ${tokens.alice}` });
        const bob = liveClient(server.url, { 'PRIVATE-TOKEN': tokens.bob });
        clients.push(alice, bob);
        const aliceAll = alice.subscribe(ALL);
        // Bob is a member of nothing: `scope: ALL` gives him nothing; his own stream has his write;
        // alice's stream, for him, leaves out her private project.
        const bobAll = bob.subscribe(ALL);
        const bobOwn = bob.subscribe(BY_USER, { u: 'bob' });
        const bobOnAlice = bob.subscribe(BY_USER, { u: 'alice' });
        await untilSubscribed(server.services, 4);

        const rest = await call(server.url, '/api/v4/projects/acme%2Fsecret/issues', {
          method: 'POST',
          headers: { 'private-token': tokens.alice, 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'Through REST' }),
        });
        assert.equal(rest.status, 201, rest.text);
        // Timed from the mutation's own request: the REST write's time under load is not delivery's.
        const started = performance.now();
        const mutation = await call(server.url, '/api/graphql', {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            query:
              'mutation { createIssue(input: {projectPath: "acme/secret", title: "Through GraphQL"}) { issue { iid } errors } }',
          }),
        });
        assert.equal(mutation.status, 200, mutation.text);
        assert.deepEqual(mutation.body, {
          data: { createIssue: { issue: { iid: 2 }, errors: [] } },
        });
        // Bob, an outsider, opens an issue on the public project: alice (a member) sees it.
        const bobs = await call(server.url, '/api/v4/projects/acme%2Fapi/issues', {
          method: 'POST',
          headers: { 'private-token': tokens.bob, 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'From outside' }),
        });
        assert.equal(bobs.status, 201, bobs.text);

        await aliceAll.waitFor(3, 1_000);
        assert.ok(aliceAll.times[1]! - started < 1_000, 'the mutation arrived within a second');
        assert.deepEqual(
          aliceAll.events.map((e) => [
            e.actionName,
            e.targetType,
            (e.project as { fullPath: string }).fullPath,
            (e.author as { username: string }).username,
          ]),
          [
            ['opened', 'ISSUE', 'acme/secret', 'alice'],
            ['opened', 'ISSUE', 'acme/secret', 'alice'],
            ['opened', 'ISSUE', 'acme/api', 'bob'],
          ],
        );
        await bobOwn.waitFor(1, 1_000);
        await sleep(300);
        assert.deepEqual(
          bobOwn.events.map((e) => (e.project as { fullPath: string }).fullPath),
          ['acme/api'],
        );
        assert.deepEqual(bobAll.events, []);
        assert.deepEqual(bobOnAlice.events, []);
      });
    });
  }
}
