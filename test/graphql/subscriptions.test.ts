/**
 * `subscription { eventCreated }` with the graphql-ws client, on both engines and both dialects:
 * delivery within a second, visibility per subscriber (private projects, anonymous), sources and
 * filters, revocation and membership removal, limits, and subscriptions refused over HTTP.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type TwoProjects, seedTwoProjects } from '../helpers/two-projects.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { ENGINES } from './client.js';
import {
  EVENT_FIELDS,
  type LiveClient,
  liveClient,
  sleep,
  untilSubscribed,
  writeEvent,
} from './live-support.js';

const ON_PROJECT = `subscription($p: ID) { eventCreated(project: $p) { ${EVENT_FIELDS} } }`;
const ON_USER = `subscription($u: ID) { eventCreated(user: $u) { ${EVENT_FIELDS} } }`;
const ALL = `subscription($f: EventFilter) { eventCreated(filter: $f) { ${EVENT_FIELDS} } }`;

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`GraphQL subscriptions (${engine}, ${dialect})`, () => {
      let server: TestServer;
      let ids: TwoProjects['ids'];
      let tokens: TwoProjects['tokens'] & { aliceRevocable: string; readUser: string };
      const clients: LiveClient[] = [];
      const connect = (params: Record<string, unknown> = {}, headers = {}) => {
        const c = liveClient(server.url, params, headers);
        clients.push(c);
        return c;
      };
      const write = (
        projectId: number,
        authorId: number,
        action: 'created' | 'closed' = 'created',
      ) => writeEvent(server.store, server.services, { projectId, authorId, action });

      before(async () => {
        server = await startServer({
          dialect,
          config: { graphqlEngine: engine },
          seed: async (store) => {
            // Alice's main token reads only: revoking her `api` tokens leaves it (see below).
            const seeded = await seedTwoProjects(store, {
              events: 0,
              scopes: { alice: ['read_api'], bob: ['api'] },
            });
            const fx = new Fixtures(store);
            ids = seeded.ids;
            tokens = {
              ...seeded.tokens,
              aliceRevocable: await fx.token(ids.alice, ['api']),
              readUser: await fx.token(ids.alice, ['read_user']),
            };
          },
        });
      });
      // Every test starts with no subscription open (untilSubscribed counts them).
      afterEach(async () => {
        await Promise.all(clients.splice(0).map((c) => c.dispose()));
        const start = Date.now();
        while (server.services.live.size > 0 && Date.now() - start < 2_000) await sleep(10);
        assert.equal(server.services.live.size, 0);
      });
      after(() => server.close());

      it('alice receives a write in her private project within a second; bob and anonymous do not', async () => {
        const alice = connect({ authorization: `Bearer ${tokens.alice}` });
        const bob = connect({ 'PRIVATE-TOKEN': tokens.bob });
        const anonymous = connect();
        const onSecret = alice.subscribe(ON_PROJECT, { p: 'acme/secret' });
        const aliceAll = alice.subscribe(ALL);
        const bobAll = bob.subscribe(ALL);
        const bobAlice = bob.subscribe(ON_USER, { u: 'alice' });
        const anonAlice = anonymous.subscribe(ON_USER, { u: String(ids.alice) });
        await untilSubscribed(server.services, 5);

        const started = performance.now();
        const secretId = await write(ids.priv, ids.alice);
        const openId = await write(ids.pub, ids.alice, 'closed');
        await onSecret.waitFor(1, 1_000);
        await aliceAll.waitFor(2, 1_000);
        await anonAlice.waitFor(1, 1_000);
        await bobAlice.waitFor(1, 1_000);
        assert.ok(onSecret.times[0]! - started < 1_000);

        assert.deepEqual(onSecret.events, [
          {
            databaseId: secretId,
            action: 'CREATED',
            actionName: 'created',
            projectId: ids.priv,
            authorId: ids.alice,
            targetType: null,
            targetId: null,
            project: { fullPath: 'acme/secret' },
            author: { username: 'alice' },
          },
        ]);
        assert.deepEqual(
          aliceAll.events.map((e) => e.databaseId),
          [secretId, openId],
        );
        // Only the public project's event for those who cannot read the private one.
        assert.deepEqual(
          bobAlice.events.map((e) => e.databaseId),
          [openId],
        );
        assert.deepEqual(
          anonAlice.events.map((e) => e.databaseId),
          [openId],
        );
        await sleep(300);
        assert.deepEqual(bobAll.events, []);
        assert.equal(bobAlice.events.length, 1);
        assert.equal(anonAlice.events.length, 1);
        for (const s of [onSecret, aliceAll, bobAll, bobAlice, anonAlice])
          assert.deepEqual(s.errors, []);
      });

      it('a filter narrows the stream (action CLOSED only)', async () => {
        const alice = connect({ authorization: `Bearer ${tokens.alice}` });
        const closedOnly = alice.subscribe(ALL, { f: { action: 'CLOSED' } });
        await untilSubscribed(server.services, 1);
        await write(ids.pub, ids.alice, 'created');
        const closedId = await write(ids.pub, ids.alice, 'closed');
        await closedOnly.waitFor(1, 1_000);
        await sleep(200);
        assert.deepEqual(
          closedOnly.events.map((e) => [e.databaseId, e.action]),
          [[closedId, 'CLOSED']],
        );
      });

      it('an event written without this process being told (another process) still arrives', async () => {
        const alice = connect({ authorization: `Bearer ${tokens.alice}` });
        const onOpen = alice.subscribe(ON_PROJECT, { p: String(ids.pub) });
        await untilSubscribed(server.services, 1);
        const started = performance.now();
        const id = await writeEvent(
          server.store,
          server.services,
          { projectId: ids.pub, authorId: ids.alice, action: 'created' },
          { announce: false },
        );
        await onOpen.waitFor(1, 3_000);
        assert.equal(onOpen.events[0]!.databaseId, id);
        // SQLite: the data-version poll (250 ms); PostgreSQL: NOTIFY from the trigger.
        assert.ok(onOpen.times[0]! - started < 1_000, `${onOpen.times[0]! - started} ms`);
      });

      it('bob subscribing to the private project: NOT_FOUND; anonymous without a source: UNAUTHENTICATED; read_user on a project: FORBIDDEN', async () => {
        const bob = connect({ 'PRIVATE-TOKEN': tokens.bob });
        const denied = bob.subscribe(ON_PROJECT, { p: 'acme/secret' });
        const anonymous = connect();
        const noSource = anonymous.subscribe(ALL);
        const readUser = connect({ 'private-token': tokens.readUser });
        const scoped = readUser.subscribe(ON_PROJECT, { p: 'acme/api' });
        await Promise.all([denied.ended, noSource.ended, scoped.ended]);
        const codes = (s: { errors: unknown[] }) =>
          s.errors.map((e) => (e as { extensions?: { code?: string } }).extensions?.code);
        assert.deepEqual(codes(denied), ['NOT_FOUND']);
        assert.deepEqual(codes(noSource), ['UNAUTHENTICATED']);
        assert.deepEqual(codes(scoped), ['FORBIDDEN']);
      });

      it('removing alice from the private project ends her stream there; nothing leaks', async () => {
        const alice = connect({ authorization: `Bearer ${tokens.alice}` });
        const onSecret = alice.subscribe(ON_PROJECT, { p: 'acme/secret' });
        await untilSubscribed(server.services, 1);
        await server.store.db
          .deleteFrom('project_members')
          .where('project_id', '=', ids.priv)
          .where('user_id', '=', ids.alice)
          .execute();
        await write(ids.priv, ids.bob);
        await onSecret.ended;
        assert.equal(onSecret.completed, true);
        assert.deepEqual(onSecret.events, []);
        await server.store.db
          .insertInto('project_members')
          .values({
            project_id: ids.priv,
            user_id: ids.alice,
            access_level: ACCESS_LEVELS.owner,
          })
          .execute();
      });

      it('revoking the token closes the socket with 4403 within a few seconds', async () => {
        const alice = connect({ 'PRIVATE-TOKEN': tokens.aliceRevocable });
        const onOpen = alice.subscribe(ON_PROJECT, { p: 'acme/api' });
        await untilSubscribed(server.services, 1);
        const started = Date.now();
        await server.store.db
          .updateTable('personal_access_tokens')
          .set({ revoked: 1 })
          .where('user_id', '=', ids.alice)
          .where('scopes', '=', 'api')
          .execute();
        const code = await alice.closed;
        assert.equal(code, 4403);
        assert.ok(Date.now() - started < 8_000);
        assert.deepEqual(onOpen.events, []);
      });

      it('at most 20 subscriptions per connection: the 21st is refused with RATE_LIMITED', async () => {
        const alice = connect({ authorization: `Bearer ${tokens.alice}` });
        const subs = Array.from({ length: 20 }, () =>
          alice.subscribe(ON_PROJECT, { p: 'acme/api' }),
        );
        await untilSubscribed(server.services, 20);
        const extra = alice.subscribe(ON_PROJECT, { p: 'acme/api' });
        await extra.ended;
        assert.deepEqual(extra.errors, [
          {
            message: 'At most 20 subscriptions per connection.',
            extensions: { code: 'RATE_LIMITED' },
          },
        ]);
        const id = await write(ids.pub, ids.alice);
        await Promise.all(subs.map((s) => s.waitFor(1, 2_000)));
        for (const s of subs)
          assert.deepEqual(
            s.events.map((e) => e.databaseId),
            [id],
          );
        await alice.dispose();
        const start = Date.now();
        while (server.services.live.size > 0 && Date.now() - start < 2_000) await sleep(10);
        assert.equal(server.services.live.size, 0);
      });

      it('a subscription over HTTP POST: 400 pointing to WebSocket', async () => {
        const res = await fetch(`${server.url}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'private-token': tokens.alice },
          body: JSON.stringify({ query: ON_PROJECT, variables: { p: 'acme/api' } }),
        });
        assert.equal(res.status, 400);
        assert.deepEqual(await res.json(), {
          errors: [
            {
              message:
                'Subscriptions are served over WebSocket (graphql-transport-ws) at /api/graphql.',
              extensions: { code: 'BAD_REQUEST' },
            },
          ],
        });
      });
    });
  }
}
