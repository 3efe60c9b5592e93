/**
 * GitLab's auto-disabling and the retry schedule: a hook failing 4 times in a row is disabled for
 * a minute (doubling each further failure), 40 times for good (its waiting deliveries given up);
 * a delivery is tried at most MAX_ATTEMPTS times, each wait within its exponential bounds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  HEALTHY,
  INITIAL_DISABLE_MS,
  MAX_ATTEMPTS,
  MAX_DISABLE_MS,
  RETRY_BASE_MS,
  RETRY_MAX_MS,
  afterFailure,
  alertStatus,
  retryDelay,
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
});

for (const dialect of DIALECTS) {
  describe(`a failing hook (${dialect})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let token: string;
    let projectId: number;
    let authorId: number;

    before(async () => {
      receiver = await new Receiver().listen();
      receiver.script = Array.from({ length: 100 }, () => 500);
      server = await startServer({
        dialect,
        config: { webhooksAllowLocal: true },
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          const project = await f.project('alice/api', alice.id);
          await f.member(project.id, alice.id, ACCESS_LEVELS.maintainer);
          projectId = project.id;
          authorId = alice.id;
          token = await f.token(alice.id);
        },
      });
    });
    after(async () => {
      await server.close();
      await receiver.close();
    });

    it('is disabled for a while after 4 failures, and for good after 40', async () => {
      const api = (method: string, path: string, body?: unknown) =>
        call(server.url, `/api/v4/projects/${projectId}${path}`, {
          method,
          headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const created = await api('POST', '/hooks', { url: receiver.url, issues_events: true });
      const hookId = (created.body as { id: number }).id;
      const hook = async () =>
        (await api('GET', `/hooks/${hookId}`)).body as Record<string, unknown>;
      const failures = async () => (await server.store.webhooks.hookById(hookId))!.recent_failures;
      const failuresReach = async (expected: number) => {
        server.services.webhooks.worker.poke();
        const { worker } = server.services.webhooks;
        for (let i = 0; i < 300 && ((await failures()) < expected || worker.busy > 0); i++) {
          await new Promise((r) => setTimeout(r, 10));
        }
        // Nothing in flight when the clock moves on.
        assert.equal(worker.busy, 0);
        return failures();
      };
      // Five issues (40 failures need more than one delivery's attempts), written while the
      // worker is stopped so that their first attempts start together.
      await server.services.webhooks.worker.stop();
      for (let i = 0; i < 5; i++) {
        await openIssue(
          server.store,
          server.services,
          server.clock.now(),
          projectId,
          authorId,
          `Issue ${i}`,
        );
      }
      server.services.webhooks.worker.start();
      // The five first attempts fail together: the 4th disables the hook for a minute, the 5th
      // doubles that.
      assert.equal(await failuresReach(5), 5);
      const disabled = await hook();
      assert.equal(disabled.alert_status, 'temporarily_disabled');
      assert.equal(
        disabled.disabled_until,
        new Date(server.clock.now() + 2 * INITIAL_DISABLE_MS).toISOString(),
      );
      // While disabled, nothing is sent, even when the retries are due.
      server.clock.advance(INITIAL_DISABLE_MS);
      server.services.webhooks.worker.poke();
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(receiver.received.length, 5);
      let count = 5;
      while ((await hook()).alert_status !== 'disabled') {
        server.clock.advance(2 * MAX_DISABLE_MS);
        const next = await failuresReach(count + 1);
        assert.ok(next > count, 'another failure');
        count = next;
      }
      assert.equal(count, 40);
      assert.equal(receiver.received.length, 40);
      const dead = await hook();
      assert.equal(dead.alert_status, 'disabled');
      assert.equal(dead.disabled_until, null);
      // Every delivery was given up (finished ones older than 7 days are pruned meanwhile).
      assert.equal(await server.store.webhooks.outstanding(), 0);
      const rows = await server.store.db
        .selectFrom('webhook_deliveries')
        .select('attempts')
        .execute();
      assert.ok(rows.every((d) => d.attempts <= MAX_ATTEMPTS));
      // Saving the hook brings it back, as in GitLab.
      const saved = await api('PUT', `/hooks/${hookId}`, { url: receiver.url });
      assert.equal((saved.body as { alert_status: string }).alert_status, 'executable');
    });
  });
}
