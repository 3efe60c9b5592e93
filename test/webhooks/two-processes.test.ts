/**
 * Two `pulsegate serve` processes over one PostgreSQL database share the outbox: every delivery is
 * claimed by one of them (FOR UPDATE SKIP LOCKED) and sent exactly once, and both take part; when
 * the receiver fails, what both processes tried together is one failure of the hook.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { createServices } from '../../src/services/container.js';
import { type Store, openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { ready, spawnServe } from '../helpers/serve-process.js';
import { type TestDatabase, createTestDatabase } from '../helpers/server.js';
import { Receiver } from './receiver.js';
import { openIssue } from './record.js';

const EVENTS = 60;

describe(
  'two processes over PostgreSQL deliver each webhook once',
  { skip: !process.env.PULSEGATE_TEST_POSTGRES_URL },
  () => {
    let database: TestDatabase;
    let receiver: Receiver;
    let store: Store;
    let services: ReturnType<typeof createServices>;
    let failing: Receiver;
    const servers: ChildProcess[] = [];

    before(async () => {
      receiver = await new Receiver().listen();
      // Slow answers keep every slot of the first process busy long enough for the second to poll.
      receiver.delayMs = 300;
      failing = await new Receiver().listen();
      database = await createTestDatabase('postgres');
      store = await openStore(database.url);
    });
    after(async () => {
      for (const server of servers) server.kill('SIGKILL');
      await store.close();
      await receiver.close();
      await failing.close();
      await database.drop();
    });

    it('sends every delivery exactly once between them', async () => {
      const f = new Fixtures(store);
      const alice = await f.user('alice');
      const project = await f.project('alice/api', alice.id);
      await f.member(project.id, alice.id, ACCESS_LEVELS.maintainer);
      await f.hook(project.id, receiver.url);
      for (let i = 0; i < 2; i++) {
        const { child, url } = await spawnServe(database.url, ['--webhooks-allow-local']);
        servers.push(child);
        await ready(url);
      }
      // The writes come from a third party (this test) through the same outbox hook.
      services = createServices(loadConfig({ databaseUrl: database.url }, {}), store);
      for (let i = 0; i < EVENTS; i++) {
        await openIssue(store, services, Date.now(), project.id, alice.id, `Issue ${i}`);
      }
      await receiver.waitFor(EVENTS, 60_000);
      // Anything sent twice would arrive within the next polls.
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal(receiver.received.length, EVENTS);
      const keys = new Set(receiver.received.map((r) => r.headers['idempotency-key']));
      assert.equal(keys.size, EVENTS);
      const titles = new Set(
        receiver.received.map((r) => (r.body.object_attributes as { title: string }).title),
      );
      assert.equal(titles.size, EVENTS);
      const rows = await store.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts', 'claimed_by'])
        .execute();
      assert.equal(rows.length, EVENTS);
      assert.ok(rows.every((r) => r.status === 'delivered' && r.attempts === 1));
      const workers = new Set(rows.map((r) => r.claimed_by));
      assert.equal(workers.size, 2, 'both processes delivered some');
    });

    it('counts the failures of what both processes tried together as one step', async () => {
      const f = new Fixtures(store);
      const bob = await f.user('bob');
      const project = await f.project('bob/api', bob.id);
      // Answers slower than a poll: whatever either process claims before the first failure is
      // recorded is in flight together with it.
      failing.delayMs = 3000;
      failing.script = Array.from({ length: 16 }, () => 503);
      const hook = await f.hook(project.id, failing.url);
      for (let i = 0; i < 16; i++) {
        await openIssue(store, services, Date.now(), project.id, bob.id, `Failing ${i}`);
      }
      await failing.waitFor(16, 30_000);
      const attempted = async () =>
        (
          await store.db
            .selectFrom('webhook_deliveries')
            .select('attempted_at')
            .where('hook_id', '=', hook.id)
            .execute()
        ).filter((r) => r.attempted_at !== null).length;
      for (let i = 0; i < 100 && (await attempted()) < 16; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const after = (await store.webhooks.hookById(hook.id))!;
      assert.equal(after.recent_failures, 1, 'sixteen failures of one try are one step');
      assert.equal(after.backoff_count, 0);
      assert.ok(after.retry_at !== null && after.retry_at > Date.now());
      // The next try (5–10 s later) sends all sixteen again, and they are delivered.
      await failing.waitFor(32, 30_000);
      for (let i = 0; i < 100; i++) {
        const rows = await store.db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('hook_id', '=', hook.id)
          .execute();
        if (rows.every((r) => r.status === 'delivered')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const healed = (await store.webhooks.hookById(hook.id))!;
      assert.equal(healed.recent_failures, 0);
      assert.equal(failing.received.length, 32);
      assert.equal(new Set(failing.received.map((r) => r.headers['idempotency-key'])).size, 16);
    });
  },
);
