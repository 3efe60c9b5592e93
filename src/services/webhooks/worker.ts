/**
 * Delivers the outbox. Each server process runs one worker: it claims due deliveries (at most
 * `concurrency` at a time, so receivers never take more than that from the process), sends them,
 * and records each attempt with the hook's failure counters in one transaction. It is woken at
 * once by writes in this process and polls for the rest (other processes' writes, retries).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  HEALTHY,
  UNDELIVERED_RETENTION_MS,
  afterDeliveryFailure,
  afterFailedAttempt,
  type HookHealth,
} from '../../domain/webhook-failures.js';
import { SealedKeyError } from '../../domain/key-sealing.js';
import type { Clock } from '../clock.js';
import type { Store } from '../../store/store.js';
import type { ProjectHookRow, WebhookDeliveryRow } from '../../store/schema.js';
import { type Resolver, type SendResult, sendWebhook } from './sender.js';

/** GitLab's `User-Agent: GitLab/<version>`: the API level pulsegate implements. */
export const WEBHOOK_USER_AGENT = 'GitLab/17.5.0';

export interface WorkerOptions {
  allowLocal: boolean;
  /** `X-Gitlab-Instance`: the configured external URL. */
  instance: () => string;
  /** The hook's token to send, opened from its sealed envelope (throws when it cannot be). */
  openToken: (hook: ProjectHookRow) => string | null;
  concurrency?: number;
  pollMs?: number;
  timeoutMs?: number;
  leaseMs?: number;
  maxResponseBytes?: number;
  resolve?: Resolver;
  random?: () => number;
  /** Told about a failure of the worker itself (not of a receiver). */
  report?: (error: unknown) => void;
}

export const DELIVERY_TIMEOUT_MS = 10_000;
/** Kept of each response body: enough to see an error message, never a receiver's megabytes. */
export const RESPONSE_EXCERPT_BYTES = 8 * 1024;
/** Finished deliveries are kept this long after they finished (GitLab keeps hook logs 7 days). */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60_000;

const NOT_SENT: SendResult = {
  status: null,
  headers: null,
  body: null,
  error: null,
  refused: true,
  address: null,
};

function healthOf(hook: ProjectHookRow): HookHealth {
  return {
    recentFailures: hook.recent_failures,
    backoffCount: hook.backoff_count,
    disabledUntil: hook.disabled_until,
    permanentlyDisabled: hook.permanently_disabled === 1,
    retryAt: hook.retry_at,
  };
}

export class WebhookWorker {
  /** This process's name on its claims. */
  readonly id = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly inFlight = new Map<number, Promise<void>>();
  private abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private scheduled = false;
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private lastPrune = 0;
  private recovered = false;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly maxResponseBytes: number;
  private readonly random: () => number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: WorkerOptions,
  ) {
    this.concurrency = options.concurrency ?? 8;
    this.pollMs = options.pollMs ?? 1000;
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    // Longer than one attempt can last, so a live claim is never taken over.
    this.leaseMs = options.leaseMs ?? this.timeoutMs * 2;
    this.maxResponseBytes = options.maxResponseBytes ?? RESPONSE_EXCERPT_BYTES;
    this.random = options.random ?? Math.random;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.abort = new AbortController();
    this.timer = setInterval(() => this.poke(), this.pollMs);
    this.timer.unref();
    this.poke();
  }

  /** Look for due deliveries now (coalesced: many pokes in one turn make one claim). */
  poke(): void {
    if (this.stopped || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.tick();
    });
  }

  /** Deliveries being sent right now by this process. */
  get busy(): number {
    return this.inFlight.size;
  }

  /**
   * Resolves once this worker has nothing scheduled, claiming or in flight: everything due when
   * it was called has been tried and recorded (tests move a manual clock step by step with it).
   */
  async idle(): Promise<void> {
    while (this.scheduled || this.ticking || this.inFlight.size > 0) {
      await Promise.allSettled([this.ticking, ...this.inFlight.values()]);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      do {
        this.again = false;
        try {
          await this.claimAndSend();
        } catch (error) {
          this.options.report?.(error);
        }
      } while (this.again && !this.stopped);
    })();
    try {
      await this.ticking;
    } finally {
      this.ticking = null;
    }
  }

  private async claimAndSend(): Promise<void> {
    if (this.stopped) return;
    if (!this.recovered) {
      this.recovered = true;
      await this.store.webhooks.releaseAbandoned();
    }
    const now = this.clock.now();
    if (now - this.lastPrune > 60 * 60_000) {
      this.lastPrune = now;
      await this.store.webhooks.expire(
        now - UNDELIVERED_RETENTION_MS,
        now,
        `Not delivered within ${UNDELIVERED_RETENTION_MS / 86_400_000} days of the event: given up.`,
      );
      await this.store.webhooks.prune(now - DELIVERY_RETENTION_MS);
    }
    const room = this.concurrency - this.inFlight.size;
    if (room <= 0) return;
    const claimed = await this.store.webhooks.claim(now, room, this.id, now + this.leaseMs);
    for (const delivery of claimed) {
      const work = this.deliver(delivery, now)
        .catch((error: unknown) => this.options.report?.(error))
        .finally(() => {
          this.inFlight.delete(delivery.id);
          // A slot is free: there may be more waiting.
          this.poke();
        });
      this.inFlight.set(delivery.id, work);
    }
    // A full batch may mean more are due.
    if (claimed.length === room) this.again = true;
  }

  /** Sends a delivery claimed at `claimedAt` (when its attempt started, for the hook's count). */
  private async deliver(delivery: WebhookDeliveryRow, claimedAt: number): Promise<void> {
    const hook = await this.store.webhooks.hookById(delivery.hook_id);
    if (!hook) return;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'x-gitlab-event': delivery.event_header,
      'x-gitlab-instance': this.options.instance(),
      'x-gitlab-webhook-uuid': randomUUID(),
      'x-gitlab-event-uuid': delivery.event_uuid,
      'idempotency-key': delivery.idempotency_key,
    };
    let token: string | null;
    try {
      token = this.options.openToken(hook);
    } catch (error) {
      if (!(error instanceof SealedKeyError)) throw error;
      // Never sent without the token the receiver expects: recorded as a failed attempt.
      const result = { ...NOT_SENT, error: error.message };
      await this.record(delivery, claimedAt, hook.id, headers, result, 0);
      return;
    }
    if (token) headers['x-gitlab-token'] = token;
    const started = performance.now();
    const result = await sendWebhook(
      {
        url: hook.url,
        headers,
        body: delivery.payload,
        verifyTls: hook.enable_ssl_verification === 1,
      },
      {
        allowLocal: this.options.allowLocal,
        timeoutMs: this.timeoutMs,
        maxResponseBytes: this.maxResponseBytes,
        resolve: this.options.resolve,
        signal: this.abort.signal,
      },
    );
    const durationMs = Math.round(performance.now() - started);
    if (this.stopped && result.status === null && !result.refused) {
      // Cut off by shutdown: not the receiver's failure; another start sends it again.
      await this.store.webhooks.release([delivery.id], this.id, this.clock.now());
      return;
    }
    await this.record(delivery, claimedAt, hook.id, headers, result, durationMs);
  }

  private async record(
    delivery: WebhookDeliveryRow,
    claimedAt: number,
    hookId: number,
    headers: Record<string, string>,
    result: SendResult,
    durationMs: number,
  ): Promise<void> {
    const now = this.clock.now();
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const shown = { ...headers };
    if (shown['x-gitlab-token'] !== undefined) shown['x-gitlab-token'] = '[REDACTED]';
    await this.store.transaction(async (tx) => {
      const hook = await tx.webhooks.hookForUpdate(hookId);
      if (!hook) return;
      const before = healthOf(hook);
      const health = ok
        ? HEALTHY
        : afterFailedAttempt(before, claimedAt, now, this.random()).health;
      const outcome = ok
        ? { giveUp: false, nextAttemptAt: now }
        : afterDeliveryFailure(health, delivery.attempts, now);
      const recorded = await tx.webhooks.finish(delivery.id, this.id, {
        status: ok ? 'delivered' : outcome.giveUp ? 'failed' : 'pending',
        nextAttemptAt: outcome.nextAttemptAt,
        requestHeaders: JSON.stringify(shown),
        responseStatus: result.status,
        responseHeaders: result.headers ? JSON.stringify(result.headers) : null,
        responseBody: result.body,
        error: result.error,
        durationMs,
        attemptedAt: now,
      });
      // Our lease ran out and another worker took the delivery over: its outcome counts.
      if (!recorded) return;
      if (JSON.stringify(health) !== JSON.stringify(before)) {
        await tx.webhooks.updateHook(hookId, {
          recent_failures: health.recentFailures,
          backoff_count: health.backoffCount,
          disabled_until: health.disabledUntil,
          permanently_disabled: health.permanentlyDisabled ? 1 : 0,
          retry_at: health.retryAt,
        });
      }
      // A hook disabled for good keeps its waiting deliveries: they go if it is enabled again
      // within the retention.
    });
  }

  /**
   * Stops claiming, gives deliveries in flight `graceMs` to finish, interrupts the rest and hands
   * them back to the outbox (sent again on the next start, with the same Idempotency-Key).
   */
  async stop(graceMs = 1000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    if (this.ticking) await this.ticking.catch(() => undefined);
    const pending = [...this.inFlight.values()];
    if (pending.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.allSettled(pending), grace]);
      clearTimeout(timer);
      this.abort.abort();
      await Promise.allSettled([...this.inFlight.values()]);
    }
  }
}
