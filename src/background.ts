/**
 * Periodic work every server process runs: ending expired memberships (each ended by exactly one
 * process, see MemberStore.removeExpired), forgetting idempotency answers older than a day,
 * pruning events older than `--retain-events` (services/retention.ts) and, on PostgreSQL,
 * creating event partitions ahead of the ids (store/events/partitions.ts).
 * Timers are unref'd so they never keep a process alive. Stopping clears them and waits for the
 * jobs in flight, each of which stops at its next batch boundary, so the store is never closed
 * under a batch.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services/container.js';

const MEMBERSHIP_EXPIRY_EVERY_MS = 60_000;
const IDEMPOTENCY_PRUNE_EVERY_MS = 60 * 60_000;
/** Retention looks for old events hourly; a backlog drains within one run. */
const EVENT_PRUNE_EVERY_MS = 60 * 60_000;
/** Between two batches of one run: other writers take their turn at the database. */
const EVENT_PRUNE_PAUSE_MS = 50;
/**
 * PostgreSQL's event partitions hold a million ids each and two are kept ready beyond the current
 * one: checked every minute, a server would have to write over 30,000 events a second to reach
 * one not made yet.
 */
const EVENT_PARTITIONS_EVERY_MS = 60_000;

export function startBackgroundJobs(
  services: Services,
  log: FastifyBaseLogger,
): () => Promise<void> {
  const timers: NodeJS.Timeout[] = [];
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let wake: (() => void) | null = null;
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
    const tracked = () => {
      const done = run();
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    };
    const timer = setInterval(tracked, ms);
    timer.unref();
    timers.push(timer);
    // First run soon after start, not a full period later.
    const first = setTimeout(tracked, Math.min(ms, 1_000));
    first.unref();
    timers.push(first);
  };
  /** A pause that ends early when the jobs stop. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  every(MEMBERSHIP_EXPIRY_EVERY_MS, 'membership-expiry', async () => {
    // Drain: a backlog (a server that was down over the expiry day) goes in batches.
    while ((await services.content.expireMemberships()) > 0 && !stopped);
  });
  every(IDEMPOTENCY_PRUNE_EVERY_MS, 'idempotency-prune', () =>
    services.content.pruneIdempotencyKeys(),
  );
  if (services.retention.cutoff() !== null) {
    every(EVENT_PRUNE_EVERY_MS, 'event-prune', async () => {
      const run = await services.retention.pruneAll(
        () => stopped,
        () => pause(EVENT_PRUNE_PAUSE_MS),
      );
      if (run.events > 0) log.info({ job: 'event-prune', ...run }, 'pruned old events');
    });
  }
  every(EVENT_PARTITIONS_EVERY_MS, 'event-partitions', async () => {
    const created = await services.content.ensureEventPartitions();
    if (created.length > 0) log.info({ partitions: created }, 'event partitions created');
  });
  return async () => {
    stopped = true;
    for (const timer of timers) clearInterval(timer);
    wake?.();
    await Promise.all(inFlight);
  };
}
