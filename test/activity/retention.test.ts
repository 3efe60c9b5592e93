/**
 * Event retention (services/retention.ts, store/events/prune.ts) on both dialects: it removes
 * exactly the events older than the window (by time, whatever their ids), with their push
 * payloads and their finished webhook deliveries past their own retention, in batches no larger
 * than the batch size, while writes and reads run; every listing's total agrees with its rows
 * during the run and with direct counts after it (REST X-Total for a project, a user, the
 * viewer's own and scope=all; GraphQL totalCount), and the tallies equal a count from scratch.
 * The background loop prunes on its own, records the metrics and stops when the server closes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Retention } from '../../src/domain/retention.js';
import { RetentionService } from '../../src/services/retention.js';
import { actionCode } from '../../src/domain/vocabulary.js';
import { Fixtures } from '../helpers/fixtures.js';
import { call, get } from '../helpers/http.js';
import { raw } from '../graphql/client.js';
import { seedTwoProjects, type TwoProjects } from '../helpers/two-projects.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const DAY = 86_400_000;
const YEAR: Retention = { amount: 1, unit: 'y' };
/** The test servers' clock (test/helpers/server.ts): 2026-01-15 12:00 UTC. */
const NOW = Date.UTC(2026, 0, 15, 12);
const CUTOFF = Date.UTC(2025, 0, 15, 12);
const BATCH = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Old and young events interleaved, so ids do not follow time: the two projects, alice's and
 * bob's, pushes among them (with payloads), and one at each side of the cutoff to the
 * millisecond.
 */
async function seedOldAndYoung(server: TestServer, t: TwoProjects) {
  const f = new Fixtures(server.store);
  const { pub, priv, alice, bob } = t.ids;
  await f.member(pub, bob, 30);
  const times: number[] = [CUTOFF - 1, CUTOFF];
  for (let i = 0; i < 40; i++) {
    times.push(CUTOFF - (i + 1) * 9 * DAY); // old: up to a year before the cutoff
    if (i % 2 === 0) times.push(CUTOFF + (i + 1) * 7 * DAY); // young
  }
  for (const [i, createdAt] of times.entries()) {
    const push = i % 4 === 1;
    await f.event({
      projectId: i % 2 === 0 ? pub : priv,
      authorId: i % 5 === 0 ? bob : alice,
      action: push ? 'pushed' : 'commented',
      createdAt,
      ...(push ? { push: { ref: 'main', commits: [] } } : {}),
    });
  }
}

for (const dialect of DIALECTS) {
  describe(`event retention (${dialect})`, () => {
    let server: TestServer;
    let t: TwoProjects;

    before(async () => {
      // Retention off for the server: this suite drives the prune itself.
      server = await startServer({
        dialect,
        config: { retainEvents: null },
        seed: async (store) => {
          t = await seedTwoProjects(store);
        },
      });
      await seedOldAndYoung(server, t);
    });
    after(() => server.close());

    const db = () => server.store.db;
    type EventCount = ReturnType<typeof countQuery>;
    const countQuery = () =>
      db()
        .selectFrom('events')
        .select(sql<number | string>`count(*)`.as('n'));
    const count = async (where: (q: EventCount) => EventCount = (q) => q) =>
      Number((await where(countQuery()).executeTakeFirstOrThrow()).n);

    async function hook() {
      return db()
        .insertInto('project_hooks')
        .values({
          project_id: t.ids.pub,
          url: 'http://example.test/hook',
          token: null,
          push_events: 1,
          tag_push_events: 0,
          issues_events: 0,
          confidential_issues_events: 0,
          merge_requests_events: 0,
          note_events: 0,
          confidential_note_events: 0,
          member_events: 0,
          enable_ssl_verification: 1,
          disabled_until: null,
          created_at: NOW,
          retry_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    }

    /** The listings whose totals must agree with their rows, as alice and bob read them. */
    function listings() {
      const { pub, priv, alice, bob } = t.ids;
      return [
        {
          path: `/api/v4/projects/${pub}/events`,
          token: t.tokens.alice,
          where: `project_id = ${pub}`,
        },
        {
          path: `/api/v4/projects/${priv}/events`,
          token: t.tokens.alice,
          where: `project_id = ${priv}`,
        },
        {
          path: `/api/v4/users/${alice}/events`,
          token: t.tokens.alice,
          where: `author_id = ${alice}`,
        },
        { path: `/api/v4/events`, token: t.tokens.alice, where: `author_id = ${alice}` },
        {
          path: `/api/v4/events?scope=all`,
          token: t.tokens.alice,
          where: `project_id IN (${pub}, ${priv})`,
        },
        // bob is a Developer of the public project only: his own events in the private one
        // (written before this membership) are not his to read there.
        {
          path: `/api/v4/users/${bob}/events`,
          token: t.tokens.bob,
          where: `author_id = ${bob} AND project_id = ${pub}`,
        },
      ];
    }

    const sep = (path: string) => (path.includes('?') ? '&' : '?');

    /**
     * Every REST listing's X-Total against its rows. (GraphQL's totalCount and nodes are two
     * reads at their own heads, so under concurrent appends they may differ by the events
     * appended between them; GraphQL is compared with direct counts once writes stop.)
     */
    async function totalsAgreeWithRows() {
      for (const listing of listings()) {
        const res = await get(
          server.url,
          `${listing.path}${sep(listing.path)}per_page=100`,
          listing.token,
        );
        assert.equal(res.status, 200, listing.path);
        const rows = res.body as unknown[];
        assert.equal(Number(res.headers.get('x-total')), rows.length, listing.path);
      }
    }

    /** Every listing's total against a count of the table. */
    async function totalsAreDirectCounts() {
      for (const listing of listings()) {
        const res = await get(
          server.url,
          `${listing.path}${sep(listing.path)}per_page=1`,
          listing.token,
        );
        const direct = await count((q) => q.where(sql<boolean>`${sql.raw(listing.where)}`));
        assert.equal(Number(res.headers.get('x-total')), direct, listing.path);
      }
      const gq = await raw<{ project: { events: { totalCount: number } } }>(
        server.url,
        '{ project(fullPath: "acme/api") { events(first: 1) { totalCount } } }',
        undefined,
        { token: t.tokens.alice },
      );
      assert.equal(
        gq.body.data!.project.events.totalCount,
        await count((q) => q.where('project_id', '=', t.ids.pub)),
      );
    }

    it('dry run says what would go and removes nothing', async () => {
      const retention = new RetentionService(server.store, server.clock, YEAR, BATCH);
      const before = await count();
      const plan = await retention.plan();
      const old = await count((q) => q.where('created_at', '<', CUTOFF));
      const oldPushes = Number(
        (
          await db()
            .selectFrom('push_event_payloads as p')
            .innerJoin('events as e', 'e.id', 'p.event_id')
            .select(sql`count(*)`.as('n'))
            .where('e.created_at', '<', CUTOFF)
            .executeTakeFirstOrThrow()
        ).n,
      );
      assert.ok(old > 40 && oldPushes >= 10, `old ${old}, old pushes ${oldPushes}`);
      assert.deepEqual(plan, {
        retention: '1y',
        cutoff: CUTOFF,
        events: old,
        pushPayloads: oldPushes,
        webhookDeliveries: 0,
        oldestKept: CUTOFF,
      });
      assert.equal(await count(), before);
    });

    it('removes exactly what is older, in bounded batches, while writes and reads run', async () => {
      const retention = new RetentionService(server.store, server.clock, YEAR, BATCH);
      await totalsAreDirectCounts();
      // A finished delivery of an old event past its own seven days goes; one pending stays.
      const { id: hookId } = await hook();
      const [oldEvent, otherOld] = await db()
        .selectFrom('events')
        .select('id')
        .where('created_at', '<', CUTOFF)
        .orderBy('id')
        .limit(2)
        .execute();
      const delivery = (eventId: number, status: string) => ({
        hook_id: hookId,
        event_id: eventId,
        event_header: 'Push Hook',
        trigger: 'push_events',
        event_uuid: `u${eventId}`,
        idempotency_key: `k${eventId}`,
        payload: '{}',
        status,
        next_attempt_at: NOW - 30 * DAY,
        created_at: NOW - 30 * DAY,
      });
      await db()
        .insertInto('webhook_deliveries')
        .values([delivery(oldEvent!.id, 'delivered'), delivery(otherOld!.id, 'pending')])
        .execute();
      const old = await count((q) => q.where('created_at', '<', CUTOFF));

      const batches: number[] = [];
      let done = false;
      let writes = 0;
      let checks = 0;
      const prune = (async () => {
        try {
          while (true) {
            const removed = (await retention.pruneBatch())!;
            batches.push(removed.events);
            // Between batches, with the writer still appending: every total is its rows.
            await totalsAgreeWithRows();
            checks++;
            if (removed.events < BATCH) return;
          }
        } finally {
          done = true;
        }
      })();
      const writer = (async () => {
        while (!done) {
          const res = await call(server.url, `/api/v4/projects/${t.ids.pub}/issues`, {
            method: 'POST',
            headers: { 'PRIVATE-TOKEN': t.tokens.alice, 'content-type': 'application/json' },
            body: JSON.stringify({ title: `written during the prune ${writes}` }),
          });
          assert.equal(res.status, 201);
          writes++;
        }
      })();
      // Reads racing the batches are answered (a batch committing between a listing's count
      // and its walk is the limit docs/operations.md describes, so only the answer is checked).
      let racing = 0;
      const reader = (async () => {
        while (!done) {
          for (const listing of listings()) {
            const res = await get(server.url, listing.path, listing.token);
            assert.equal(res.status, 200, listing.path);
            assert.ok(Array.isArray(res.body));
            racing++;
          }
        }
      })();
      await Promise.all([prune, writer, reader]);

      assert.ok(batches.every((n) => n <= BATCH));
      assert.ok(batches.length >= Math.ceil(old / BATCH));
      assert.equal(
        batches.reduce((a, b) => a + b, 0),
        old,
      );
      assert.ok(writes > 0 && racing > 0, `writes ${writes}, racing reads ${racing}`);
      assert.equal(checks, batches.length);
      // Nothing older is left, nothing younger went (the issues written meanwhile included).
      assert.equal(await count((q) => q.where('created_at', '<', CUTOFF)), 0);
      assert.equal(await count((q) => q.where('created_at', '=', CUTOFF)), 1);
      const issueEvents = await count((q) =>
        q.where('action', '=', actionCode('created')).where('target_type', '=', 'Issue'),
      );
      assert.equal(issueEvents, writes);
      const orphans = await db()
        .selectFrom('push_event_payloads as p')
        .leftJoin('events as e', 'e.id', 'p.event_id')
        .select('p.event_id')
        .where('e.id', 'is', null)
        .execute();
      assert.deepEqual(orphans, []);
      const left = await db()
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'status'])
        .execute();
      assert.deepEqual(left, [{ event_id: otherOld!.id, status: 'pending' }]);
      // Tallies equal the events counted from scratch.
      const tallies = await db()
        .selectFrom('event_tallies')
        .select(['project_id', 'author_id', 'action', 'target_type', 'n'])
        .where('n', '!=', 0)
        .orderBy(['project_id', 'author_id', 'action', 'target_type'])
        .execute();
      const scratch = await db()
        .selectFrom('events')
        .select((eb) => [
          'project_id',
          'author_id',
          'action',
          sql<string>`coalesce(target_type, '')`.as('target_type'),
          eb.fn.countAll().as('n'),
        ])
        .groupBy(['project_id', 'author_id', 'action', sql`coalesce(target_type, '')`])
        .orderBy(['project_id', 'author_id', 'action', 'target_type'])
        .execute();
      assert.deepEqual(
        tallies.map((r) => ({ ...r, n: Number(r.n) })),
        scratch.map((r) => ({ ...r, n: Number(r.n) })),
      );
      await totalsAgreeWithRows();
      await totalsAreDirectCounts();
      // A second run finds nothing.
      assert.deepEqual(await retention.pruneBatch(), {
        events: 0,
        pushPayloads: 0,
        webhookDeliveries: 0,
      });
    });

    it('keeps everything with retention 0', async () => {
      const retention = new RetentionService(server.store, server.clock, null, BATCH);
      assert.equal(retention.cutoff(), null);
      assert.equal(await retention.plan(), null);
      assert.equal(await retention.pruneBatch(), null);
    });
  });

  if (dialect === 'postgres') {
    describe('PostgreSQL: a batch across projects and a membership change do not deadlock', () => {
      it('takes the batch’s epochs in the order other writers take them', async () => {
        let t!: TwoProjects;
        const server = await startServer({
          dialect,
          config: { retainEvents: null },
          seed: async (store) => {
            t = await seedTwoProjects(store, { events: 3 });
          },
        });
        try {
          const { pub, priv } = t.ids;
          const [first, second] = pub < priv ? [pub, priv] : [priv, pub];
          // Another writer of epochs, as migration 013's trigger does it: its project's row, then
          // (a moment later) the all-projects row.
          const other = await server.store.db.connection().execute(async (conn) => {
            await sql`BEGIN`.execute(conn);
            await sql`UPDATE listing_epochs SET epoch = epoch + 1 WHERE project_id = ${second}`.execute(
              conn,
            );
            const retention = new RetentionService(server.store, server.clock, YEAR, 100);
            const batch = retention.pruneBatch();
            // The batch takes the first project's row and waits for the second's.
            await sleep(300);
            await sql`UPDATE listing_epochs SET epoch = epoch + 1 WHERE project_id = 0`.execute(
              conn,
            );
            await sql`COMMIT`.execute(conn);
            return batch;
          });
          assert.deepEqual(other, { events: 6, pushPayloads: 0, webhookDeliveries: 0 });
          assert.ok(first !== second);
        } finally {
          await server.close();
        }
      });
    });
  }

  describe(`the background loop prunes on its own (${dialect})`, () => {
    it('drains old events in batches, counts them in the metrics, and stops on close', async () => {
      let t!: TwoProjects;
      const server = await startServer({
        dialect,
        config: { retainEvents: { amount: 90, unit: 'd' }, pruneBatchSize: 3 },
        seed: async (store) => {
          t = await seedTwoProjects(store, { events: 5 });
          const f = new Fixtures(store);
          await f.event({
            projectId: t.ids.pub,
            authorId: t.ids.alice,
            action: 'commented',
            createdAt: NOW - 89 * DAY,
          });
        },
      });
      try {
        const events = () => server.store.db.selectFrom('events').select(['created_at']).execute();
        for (let i = 0; i < 100 && (await events()).length > 1; i++) await sleep(100);
        assert.deepEqual(await events(), [{ created_at: NOW - 89 * DAY }]);
        const metrics = await server.services.metrics.render();
        assert.match(metrics.body, /pulsegate_pruned_rows_total\{table="events"\} 10\n/);
        assert.match(metrics.body, /pulsegate_prune_last_run_seconds \d/);
      } finally {
        await server.close();
      }
    });
  });
}
