/**
 * Periodic work every server process runs: ending expired memberships (each ended by exactly one
 * process, see MemberStore.removeExpired), forgetting idempotency answers older than a day and,
 * on PostgreSQL, creating event partitions ahead of the ids (store/events/partitions.ts).
 * Timers are unref'd so they never keep a process alive, and stop when the server closes.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services/container.js';

const MEMBERSHIP_EXPIRY_EVERY_MS = 60_000;
const IDEMPOTENCY_PRUNE_EVERY_MS = 60 * 60_000;
/**
 * PostgreSQL's event partitions hold a million ids each and two are kept ready beyond the current
 * one: checked every minute, a server would have to write over 30,000 events a second to reach
 * one not made yet.
 */
const EVENT_PARTITIONS_EVERY_MS = 60_000;

export function startBackgroundJobs(services: Services, log: FastifyBaseLogger): () => void {
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  const every = (ms: number, name: string, job: () => Promise<unknown>) => {
    let running = false;
    const run = async () => {
      if (running || stopped) return;
      running = true;
      try {
        await job();
      } catch (error) {
        log.error({ err: error, job: name }, 'background job failed');
      } finally {
        running = false;
      }
    };
    const timer = setInterval(run, ms);
    timer.unref();
    timers.push(timer);
    // First run soon after start, not a full period later.
    const first = setTimeout(run, Math.min(ms, 1_000));
    first.unref();
    timers.push(first);
  };
  every(MEMBERSHIP_EXPIRY_EVERY_MS, 'membership-expiry', async () => {
    // Drain: a backlog (a server that was down over the expiry day) goes in batches.
    while ((await services.content.expireMemberships()) > 0 && !stopped);
  });
  every(IDEMPOTENCY_PRUNE_EVERY_MS, 'idempotency-prune', () =>
    services.content.pruneIdempotencyKeys(),
  );
  every(EVENT_PARTITIONS_EVERY_MS, 'event-partitions', async () => {
    const created = await services.content.ensureEventPartitions();
    if (created.length > 0) log.info({ partitions: created }, 'event partitions created');
  });
  return () => {
    stopped = true;
    for (const timer of timers) clearInterval(timer);
  };
}
