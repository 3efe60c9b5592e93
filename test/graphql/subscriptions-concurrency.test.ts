/**
 * No event lost, duplicated or out of order while writes run concurrently: 500 writes from this
 * process (several concurrent writers, announced after commit) and from two other OS processes
 * (heard through the database only), into a private and a public project; every subscriber with
 * access receives exactly the events it may list, in id order. Then a second server over the same
 * database delivers to its own subscribers what the first one's process writes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { buildServer } from '../../src/server.js';
import { openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type TwoProjects, seedTwoProjects } from '../helpers/two-projects.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import {
  EVENT_FIELDS,
  type LiveClient,
  liveClient,
  untilSubscribed,
  writeEvent,
} from './live-support.js';

const ON_PROJECT = `subscription($p: ID) { eventCreated(project: $p) { ${EVENT_FIELDS} } }`;
const ALL = `subscription { eventCreated { ${EVENT_FIELDS} } }`;

function otherProcess(url: string, author: number, count: number, projects: number[]) {
  return new Promise<number[]>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/graphql/live-writer.ts',
        url,
        String(author),
        String(count),
        ...projects.map(String),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as number[])
        : reject(new Error(`writer exited ${code}`)),
    );
  });
}

for (const dialect of DIALECTS) {
  describe(`GraphQL subscriptions under concurrent writes (${dialect})`, () => {
    let server: TestServer;
    let ids: TwoProjects['ids'];
    let tokens: { alice: string; bob: string };
    const clients: LiveClient[] = [];

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          ({ ids, tokens } = await seedTwoProjects(store, { events: 0 }));
          // Bob's `scope: ALL` stream is the public project's events.
          await new Fixtures(store).member(ids.pub, ids.bob, ACCESS_LEVELS.guest);
        },
      });
    });
    after(async () => {
      await Promise.all(clients.map((c) => c.dispose()));
      await server.close();
    });

    it('500 writes from several writers and processes: every subscriber gets exactly its events, in id order', async () => {
      const alice = liveClient(server.url, { authorization: `Bearer ${tokens.alice}` });
      const bob = liveClient(server.url, { 'PRIVATE-TOKEN': tokens.bob });
      const anonymous = liveClient(server.url);
      clients.push(alice, bob, anonymous);
      const aliceAll = alice.subscribe(ALL);
      const aliceSecret = alice.subscribe(ON_PROJECT, { p: 'acme/secret' });
      const bobAll = bob.subscribe(ALL);
      const anonOpen = anonymous.subscribe(ON_PROJECT, { p: 'acme/api' });
      await untilSubscribed(server.services, 4);

      const projects = [ids.priv, ids.pub];
      const local = (writer: number) => async () => {
        const written: number[] = [];
        for (let i = 0; i < 50; i++) {
          const projectId = projects[(writer + i) % 2]!;
          written.push(
            await writeEvent(server.store, server.services, {
              projectId,
              authorId: writer % 2 ? ids.alice : ids.bob,
              action: 'created',
            }),
          );
        }
        return written;
      };
      const url = server.config.databaseUrl;
      const batches = await Promise.all([
        ...[0, 1, 2, 3].map((w) => local(w)()),
        otherProcess(url, ids.alice, 150, projects),
        otherProcess(url, ids.bob, 150, [ids.pub, ids.priv]),
      ]);
      const written = batches.flat();
      assert.equal(written.length, 500);
      assert.equal(new Set(written).size, 500);

      const rows = await server.store.db
        .selectFrom('events')
        .select(['id', 'project_id'])
        .where('id', 'in', written)
        .orderBy('id')
        .execute();
      const inProject = (p: number) => rows.filter((r) => r.project_id === p).map((r) => r.id);
      const everything = rows.map((r) => r.id);
      const expected = {
        aliceAll: everything,
        aliceSecret: inProject(ids.priv),
        bobAll: inProject(ids.pub),
        anonOpen: inProject(ids.pub),
      };
      const subscribers = { aliceAll, aliceSecret, bobAll, anonOpen };
      for (const [name, subscriber] of Object.entries(subscribers)) {
        const want = expected[name as keyof typeof expected];
        await subscriber.waitFor(want.length, 10_000);
        assert.deepEqual(
          subscriber.events.map((e) => e.databaseId),
          want,
          `${name} got exactly its events in id order`,
        );
        assert.deepEqual(subscriber.errors, []);
      }
    });

    it('a second server over the same database delivers what the first one writes', async () => {
      const store = await openStore(server.config.databaseUrl);
      const config = {
        ...loadConfig(
          { databaseUrl: server.config.databaseUrl, port: 0, logLevel: 'silent', rateLimit: 0 },
          {},
        ),
      };
      const second = await buildServer({ config, store });
      await second.app.listen({ host: '127.0.0.1', port: 0 });
      const address = second.app.server.address() as { port: number };
      try {
        const alice = liveClient(`http://127.0.0.1:${address.port}`, {
          authorization: `Bearer ${tokens.alice}`,
        });
        clients.push(alice);
        const onSecret = alice.subscribe(ON_PROJECT, { p: 'acme/secret' });
        await untilSubscribed(second.services, 1);
        const started = performance.now();
        const id = await writeEvent(server.store, server.services, {
          projectId: ids.priv,
          authorId: ids.bob,
          action: 'created',
        });
        await onSecret.waitFor(1, 2_000);
        const delay = onSecret.times[0]! - started;
        assert.deepEqual(
          onSecret.events.map((e) => e.databaseId),
          [id],
        );
        assert.ok(delay < 1_000, `${delay} ms`);
        await alice.dispose();
      } finally {
        await second.app.close();
        await store.close();
      }
    });
  });
}
