/**
 * GitLab's auto-disabling and the retry schedule: a hook failing 4 times in a row is disabled for
 * a minute (doubling each further failure), 40 times for good; the failures of deliveries tried
 * together count once; deliveries wait through a disable and go out when it ends; a hook disabled
 * for good keeps its undelivered deliveries (visible, sent when it is enabled again) until the
 * retention gives them up, visibly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  HEALTHY,
  INITIAL_DISABLE_MS,
  MAX_ATTEMPTS,
  MAX_DISABLE_MS,
  PERMANENT_FAILURE_LIMIT,
  RETRY_BASE_MS,
  RETRY_MAX_MS,
  UNDELIVERED_RETENTION_MS,
  afterDeliveryFailure,
  afterFailedAttempt,
  afterFailure,
  alertStatus,
  retryDelay,
  type HookHealth,
} from '../../src/domain/webhook-failures.js';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { Fixtures } from '../helpers/fixtures.js';
import { call } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { Receiver } from './receiver.js';
import { openIssue } from './record.js';

describe('failure rules', () => {
  it('disables after 4 failures with a doubling wait, for good after 40', () => {
    let health = HEALTHY;
    const now = 1_000_000;
    const waits: (number | null)[] = [];
    for (let i = 1; i <= 40; i++) {
      health = afterFailure(health, now);
      waits.push(health.disabledUntil === null ? null : health.disabledUntil - now);
      if (i <= 3) assert.equal(alertStatus(health, now), 'executable', `failure ${i}`);
      else if (i < 40)
        assert.equal(alertStatus(health, now), 'temporarily_disabled', `failure ${i}`);
    }
    assert.deepEqual(waits.slice(0, 6), [
      null,
      null,
      null,
      INITIAL_DISABLE_MS,
      2 * INITIAL_DISABLE_MS,
      4 * INITIAL_DISABLE_MS,
    ]);
    assert.equal(waits[38], MAX_DISABLE_MS, 'capped at a day');
    assert.equal(health.permanentlyDisabled, true);
    assert.equal(alertStatus(health, now + 10 * MAX_DISABLE_MS), 'disabled');
  });

  it('waits between half and all of the exponential ceiling', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (attempts, random) => {
          const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempts - 1));
          const delay = retryDelay(attempts, random);
          assert.ok(delay >= ceiling / 2 && delay <= ceiling, `${attempts}: ${delay}`);
        },
      ),
    );
  });
  it('counts the failures of attempts made together as one step', () => {
    const now = 1_000_000;
    // Eight attempts started together at `now`; they fail one after another.
    let health: HookHealth = HEALTHY;
    for (let i = 0; i < 8; i++) health = afterFailedAttempt(health, now, now + i, 0.5).health;
    assert.equal(health.recentFailures, 1);
    assert.equal(health.retryAt, now + retryDelay(1, 0.5));
    // The next try is a new step; anything started before it is not.
    const retry = health.retryAt!;
    assert.equal(afterFailedAttempt(health, retry - 1, retry + 5, 0.5).step, false);
    const second = afterFailedAttempt(health, retry, retry + 5, 0.5);
    assert.equal(second.step, true);
    assert.equal(second.health.recentFailures, 2);
    // Rounds of any size: failure n is step n, and the 4th disables for a minute, doubling.
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 45 }),
        (rounds) => {
          let h: HookHealth = HEALTHY;
          let at = now;
          rounds.forEach((size, round) => {
            at = Math.max(at, h.retryAt ?? at);
            for (let i = 0; i < size; i++) h = afterFailedAttempt(h, at, at + i, 0.3).health;
            const steps = Math.min(round + 1, PERMANENT_FAILURE_LIMIT);
            assert.equal(h.recentFailures, steps);
            if (steps > 3 && steps < PERMANENT_FAILURE_LIMIT) {
              assert.equal(
                h.disabledUntil! - at,
                Math.min(MAX_DISABLE_MS, INITIAL_DISABLE_MS * 2 ** (steps - 4)),
              );
              assert.equal(h.retryAt, h.disabledUntil);
            }
          });
        },
      ),
    );
  });

  it('gives a delivery up after its attempts only while its hook is not disabled', () => {
    const now = 5_000_000;
    const failing = afterFailure(afterFailure(HEALTHY, now), now);
    const disabled = [1, 2, 3, 4].reduce((h) => afterFailure(h, now), HEALTHY);
    const dead = { ...HEALTHY, recentFailures: 40, permanentlyDisabled: true };
    assert.deepEqual(afterDeliveryFailure({ ...failing, retryAt: now + 9 }, MAX_ATTEMPTS, now), {
      giveUp: true,
      nextAttemptAt: now,
    });
    assert.deepEqual(
      afterDeliveryFailure({ ...failing, retryAt: now + 9 }, MAX_ATTEMPTS - 1, now),
      {
        giveUp: false,
        nextAttemptAt: now + 9,
      },
    );
    assert.deepEqual(afterDeliveryFailure(disabled, 100, now), {
      giveUp: false,
      nextAttemptAt: now + INITIAL_DISABLE_MS,
    });
    assert.deepEqual(afterDeliveryFailure(dead, 100, now), { giveUp: false, nextAttemptAt: now });
  });
});

for (const dialect of DIALECTS) {
  describe(`a failing hook (${dialect})`, () => {
    let server: TestServer;
    const receivers: Receiver[] = [];
    let token: string;
    const projects: number[] = [];
    let authorId: number;

    before(async () => {
      server = await startServer({
        dialect,
        config: { webhooksAllowLocal: true },
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          for (const name of ['walk', 'outage', 'dead']) {
            const project = await f.project(`alice/${name}`, alice.id);
            await f.member(project.id, alice.id, ACCESS_LEVELS.maintainer);
            projects.push(project.id);
          }
          authorId = alice.id;
          token = await f.token(alice.id);
        },
      });
    });
    after(async () => {
      await server.close();
      for (const receiver of receivers) await receiver.close();
    });

    const api = (projectId: number, method: string, path: string, body?: unknown) =>
      call(server.url, `/api/v4/projects/${projectId}${path}`, {
        method,
        headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const worker = () => server.services.webhooks.worker;
    /** Everything due now is tried and recorded. */
    const settle = async () => {
      worker().poke();
      await worker().idle();
    };
    const hookRow = async (hookId: number) => (await server.store.webhooks.hookById(hookId))!;
    const deliveries = (hookId: number) =>
      server.store.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('hook_id', '=', hookId)
        .orderBy('id')
        .execute();
    /** A receiver and a hook on it for issue events; the receiver fails while `down()` says so. */
    const hookOn = async (projectId: number, down: () => boolean) => {
      const receiver = await new Receiver().listen();
      receivers.push(receiver);
      receiver.answer = () => (down() ? 503 : 200);
      const created = await api(projectId, 'POST', '/hooks', {
        url: receiver.url,
        issues_events: true,
      });
      assert.equal(created.status, 201, created.text);
      return { receiver, hookId: (created.body as { id: number }).id };
    };
    /** `count` issues written while the worker is stopped, so that their deliveries queue up. */
    const queueIssues = async (projectId: number, count: number) => {
      await worker().stop();
      for (let i = 0; i < count; i++) {
        await openIssue(
          server.store,
          server.services,
          server.clock.now(),
          projectId,
          authorId,
          `Issue ${i}`,
        );
      }
      worker().start();
    };

    it('counts one step per try: a minute at the 4th, doubling to a day, for good at the 40th', async () => {
      const { receiver, hookId } = await hookOn(projects[0]!, () => true);
      await worker().stop();
      for (let step = 1; step <= PERMANENT_FAILURE_LIMIT; step++) {
        const before = await hookRow(hookId);
        // The next try comes (a new issue keeps something fresh within the retention).
        const start = Math.max(server.clock.now(), before.retry_at ?? 0);
        server.clock.advance(start - server.clock.now());
        await openIssue(server.store, server.services, start, projects[0]!, authorId, `n${step}`);
        worker().start();
        await settle();
        await worker().stop();
        const hook = await hookRow(hookId);
        assert.equal(hook.recent_failures, step, `step ${step}`);
        const view = (await api(projects[0]!, 'GET', `/hooks/${hookId}`)).body as {
          alert_status: string;
          disabled_until: string | null;
        };
        if (step <= 3) {
          assert.equal(view.alert_status, 'executable');
          const wait = hook.retry_at! - start;
          const ceiling = RETRY_BASE_MS * 2 ** (step - 1);
          assert.ok(wait >= ceiling / 2 && wait <= ceiling, `step ${step}: ${wait}`);
        } else if (step < PERMANENT_FAILURE_LIMIT) {
          const wait = Math.min(MAX_DISABLE_MS, INITIAL_DISABLE_MS * 2 ** (step - 4));
          assert.equal(view.alert_status, 'temporarily_disabled');
          assert.equal(view.disabled_until, new Date(start + wait).toISOString());
          assert.equal(hook.retry_at, start + wait);
          // Nothing is sent while it is disabled, even when deliveries are due.
          const sent = receiver.received.length;
          server.clock.advance(wait - 1);
          worker().start();
          await settle();
          await worker().stop();
          assert.equal(receiver.received.length, sent);
        } else {
          assert.equal(view.alert_status, 'disabled');
          assert.equal(view.disabled_until, null);
        }
      }
      worker().start();
      // Disabled for good: nothing was given up for its attempts; what is older than the
      // retention was given up with the reason, the rest waits.
      const rows = await deliveries(hookId);
      const now = server.clock.now();
      for (const row of rows) {
        if (row.created_at < now - UNDELIVERED_RETENTION_MS) {
          assert.equal(row.status, 'failed');
          assert.match(row.error ?? '', /^Not delivered within 7 days of the event: given up\.$/);
        } else {
          assert.equal(row.status, 'pending', `delivery ${row.id}`);
        }
      }
      assert.ok(rows.some((row) => row.status === 'pending'));
    });

    it('comes back a minute after the 4th failed try of a queue of 12 during an 80 s outage', async () => {
      const start = server.clock.now();
      const failedAt: number[] = [];
      const { receiver, hookId } = await hookOn(projects[1]!, () => {
        const down = server.clock.now() < start + 80_000;
        if (down) failedAt.push(server.clock.now());
        return down;
      });
      await queueIssues(projects[1]!, 12);
      await settle();
      // The first batch (the worker sends 8 at a time) failed together: one step.
      assert.equal(receiver.received.length, 8);
      let hook = await hookRow(hookId);
      assert.equal(hook.recent_failures, 1);
      assert.equal(hook.backoff_count, 0);
      assert.ok(hook.retry_at! >= start + 5_000 && hook.retry_at! <= start + 10_000);
      // The four others wait for the hook's next try rather than fail on their own.
      assert.equal((await deliveries(hookId)).filter((d) => d.attempts === 0).length, 4);
      let delivered = 0;
      let maxBackoff = 0;
      while (delivered < 12 && server.clock.now() < start + 10 * 60_000) {
        server.clock.advance(5_000);
        await settle();
        hook = await hookRow(hookId);
        maxBackoff = Math.max(maxBackoff, hook.backoff_count);
        delivered = (await deliveries(hookId)).filter((d) => d.status === 'delivered').length;
      }
      // Each try failed as one step, however many deliveries it carried.
      const tries = new Set(failedAt).size;
      assert.ok(tries >= 4 && tries <= 5, `${tries} tries`);
      assert.ok(failedAt.length > tries, 'the tries carried several deliveries');
      assert.equal(maxBackoff, 1, 'disabled once, for a minute');
      // Back within the outage, the minute of disable and one step of waiting.
      assert.equal(delivered, 12);
      assert.ok(server.clock.now() <= start + 80_000 + INITIAL_DISABLE_MS + 40_000);
      hook = await hookRow(hookId);
      assert.equal(hook.recent_failures, 0);
      assert.equal(hook.retry_at, null);
      // Every event arrived, each with its own delivery's key on every attempt.
      const ok = receiver.received.slice(-12);
      assert.equal(new Set(ok.map((r) => r.headers['x-gitlab-event-uuid'])).size, 12);
      const keys = new Set((await deliveries(hookId)).map((d) => d.idempotency_key));
      assert.ok(receiver.received.every((r) => keys.has(String(r.headers['idempotency-key']))));
    });

    it('keeps the deliveries of a hook disabled for good and sends them when it is enabled again', async () => {
      let down = true;
      const { receiver, hookId } = await hookOn(projects[2]!, () => down);
      // One step from the end.
      await server.store.webhooks.updateHook(hookId, {
        recent_failures: PERMANENT_FAILURE_LIMIT - 1,
        backoff_count: 35,
      });
      await queueIssues(projects[2]!, 12);
      await settle();
      assert.equal(receiver.received.length, 8);
      const view = (await api(projects[2]!, 'GET', `/hooks/${hookId}`)).body as {
        alert_status: string;
      };
      assert.equal(view.alert_status, 'disabled');
      // All twelve wait, visible in the hook's event log.
      const log = await api(projects[2]!, 'GET', `/hooks/${hookId}/events?per_page=100`);
      const events = log.body as { status: string }[];
      assert.equal(events.length, 12);
      assert.deepEqual(new Set(events.map((e) => e.status)), new Set(['pending']));
      // Nothing goes while it is disabled, however long (within the retention).
      down = false;
      server.clock.advance(2 * 24 * 60 * 60_000);
      await settle();
      assert.equal(receiver.received.length, 8);
      // Saving it enables it: the twelve go out.
      const saved = await api(projects[2]!, 'PUT', `/hooks/${hookId}`, { url: receiver.url });
      assert.equal((saved.body as { alert_status: string }).alert_status, 'executable');
      await receiver.waitFor(20);
      await settle();
      assert.deepEqual(
        new Set((await deliveries(hookId)).map((d) => d.status)),
        new Set(['delivered']),
      );
      const uuids = receiver.received.slice(8).map((r) => r.headers['x-gitlab-event-uuid']);
      assert.equal(new Set(uuids).size, 12);

      // Disabled for good again, and left so past the retention: given up, visibly.
      down = true;
      await server.store.webhooks.updateHook(hookId, {
        recent_failures: PERMANENT_FAILURE_LIMIT - 1,
      });
      await queueIssues(projects[2]!, 3);
      await settle();
      assert.equal((await hookRow(hookId)).permanently_disabled, 1);
      server.clock.advance(UNDELIVERED_RETENTION_MS + 2 * 60 * 60_000);
      await settle();
      const expired = (
        (await api(projects[2]!, 'GET', `/hooks/${hookId}/events?per_page=100`)).body as {
          status: string;
          internal_error_message: string | null;
        }[]
      ).filter((e) => e.status !== 'delivered');
      assert.equal(expired.length, 3);
      for (const e of expired) {
        assert.equal(e.status, 'failed');
        assert.equal(
          e.internal_error_message,
          'Not delivered within 7 days of the event: given up.',
        );
      }
    });

    it('enables a hook disabled for good when a test delivery to it succeeds, and sends what waited', async () => {
      let down = true;
      const { receiver, hookId } = await hookOn(projects[1]!, () => down);
      await server.store.webhooks.updateHook(hookId, {
        recent_failures: PERMANENT_FAILURE_LIMIT - 1,
        backoff_count: 35,
      });
      await queueIssues(projects[1]!, 2);
      await settle();
      assert.equal((await hookRow(hookId)).permanently_disabled, 1);
      assert.equal(receiver.received.length, 2);
      // A failing test changes nothing and is retried with the hook.
      const failed = await api(projects[1]!, 'POST', `/hooks/${hookId}/test/issues_events`);
      assert.equal(failed.status, 201);
      await settle();
      assert.equal(receiver.received.length, 3);
      assert.equal((await hookRow(hookId)).recent_failures, PERMANENT_FAILURE_LIMIT);
      down = false;
      const tested = await api(projects[1]!, 'POST', `/hooks/${hookId}/test/issues_events`);
      assert.equal(tested.status, 201);
      await settle();
      // The test, then the two events and the failed test that waited.
      assert.equal(receiver.received.length, 7);
      const hook = (await api(projects[1]!, 'GET', `/hooks/${hookId}`)).body as {
        alert_status: string;
      };
      assert.equal(hook.alert_status, 'executable');
      assert.deepEqual(
        new Set((await deliveries(hookId)).map((d) => d.status)),
        new Set(['delivered']),
      );
    });
  });
}
