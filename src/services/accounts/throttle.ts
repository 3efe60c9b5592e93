/**
 * Counting failed attempts (passwords, client secrets) per account, per address and per client
 * source, in fixed windows on the injected clock. Once a key reaches its limit every attempt is
 * refused until the window ends — a correct password included — and a success resets the
 * account's counter. Counters live in the database, so every process over it shares one budget and
 * a restart forgives nothing.
 *
 * An attempt takes its place BEFORE its secret is verified (`reserve`), atomically in the
 * database, so a burst of parallel guesses gets at most `limit` evaluations per window however
 * many processes serve it. When it is settled, a failure keeps the place (`failed`) and a success
 * gives it back (`succeeded`). An attempt that finds the places taken only by attempts still in
 * flight waits for them (up to RESERVE_WAIT_MS) instead of being refused: parallel correct
 * sign-ins of one account are slowed to `limit` at a time, never locked out.
 */
import { ThrottledError } from '../../domain/errors.js';
import type { ThrottleStore } from '../../store/throttle.js';
import type { Clock } from '../clock.js';

export interface ThrottlePolicy {
  limit: number;
  windowMs: number;
}

export const THROTTLE_POLICIES = {
  /** Failed passwords for one account (sign-in form and password grant together). */
  account: { limit: 5, windowMs: 10 * 60_000 },
  /** Failed passwords from one address, whatever the usernames. */
  address: { limit: 20, windowMs: 10 * 60_000 },
  /** Failed client authentications from one address. */
  client: { limit: 20, windowMs: 10 * 60_000 },
} as const satisfies Record<string, ThrottlePolicy>;

export type ThrottleKind = keyof typeof THROTTLE_POLICIES;

/** Attempts counted in advance by `reserve`: each key with the window it was counted in. */
export interface Reservation {
  readonly entries: ReadonlyArray<{ kind: ThrottleKind; key: string; windowStart: number }>;
}

/**
 * How long an attempt waits for attempts in flight to settle before it is refused (Retry-After 1).
 * Guesses stop waiting as soon as those settle as failures; only correct ones keep it waiting.
 */
export const RESERVE_WAIT_MS = 10_000;
const RESERVE_POLL_MS = { first: 10, max: 200 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Expired windows are swept after this many recorded failures. */
const PRUNE_EVERY = 1_000;

export class ThrottleService {
  private sincePrune = 0;

  constructor(
    private readonly store: ThrottleStore,
    private readonly clock: Clock,
    private readonly policies: Record<ThrottleKind, ThrottlePolicy> = THROTTLE_POLICIES,
  ) {}

  /**
   * Takes one place for an attempt on every key before its secret is checked; throws
   * ThrottledError (and takes nothing) when a key's failures are at the limit, or when attempts in
   * flight still fill it after RESERVE_WAIT_MS. Settle the reservation with `failed` or
   * `succeeded`; one never settled (a crash) counts as a failure until its window ends.
   */
  async reserve(keys: ReadonlyArray<[ThrottleKind, string]>): Promise<Reservation> {
    const requests = keys.map(([kind, key]) => ({
      key: `${kind}:${key}`,
      limit: this.policies[kind].limit,
      windowMs: this.policies[kind].windowMs,
    }));
    const giveUp = Date.now() + RESERVE_WAIT_MS;
    for (let pause = RESERVE_POLL_MS.first; ; pause = Math.min(2 * pause, RESERVE_POLL_MS.max)) {
      const now = this.clock.now();
      const outcome = await this.store.reserve(requests, now);
      if ('windows' in outcome) {
        await this.counted(keys.length, now);
        return {
          entries: keys.map(([kind, key], i) => ({ kind, key, windowStart: outcome.windows[i]! })),
        };
      }
      if (!outcome.inFlight) {
        throw new ThrottledError(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000)));
      }
      if (Date.now() >= giveUp) throw new ThrottledError(1);
      await sleep(pause);
    }
  }

  /** The attempt failed: its places become failures. */
  async failed(reservation: Reservation): Promise<void> {
    await this.settle(reservation, () => 'failed');
  }

  /** The attempt succeeded: its places are given back, and the `clear` kinds forget their failures. */
  async succeeded(reservation: Reservation, clear: readonly ThrottleKind[] = []): Promise<void> {
    await this.settle(reservation, (kind) => (clear.includes(kind) ? 'cleared' : 'succeeded'));
  }

  private async settle(
    reservation: Reservation,
    outcome: (kind: ThrottleKind) => 'failed' | 'succeeded' | 'cleared',
  ): Promise<void> {
    const now = this.clock.now();
    for (const { kind, key, windowStart } of reservation.entries) {
      const { windowMs } = this.policies[kind];
      await this.store.settle(`${kind}:${key}`, windowStart, outcome(kind), now, windowMs);
    }
  }

  /**
   * Throws ThrottledError when any of the keys is locked. Reads only, for refusals that verify
   * nothing (a secret is always verified under a `reserve`).
   */
  async check(keys: ReadonlyArray<[ThrottleKind, string]>): Promise<void> {
    const now = this.clock.now();
    const counters = await this.store.counters(keys.map(([kind, key]) => `${kind}:${key}`));
    let retryAfter = 0;
    for (const [kind, key] of keys) {
      const counter = counters.get(`${kind}:${key}`);
      const policy = this.policies[kind];
      if (!counter || now - counter.window_start >= policy.windowMs) continue;
      if (counter.failures >= policy.limit) {
        const remaining = counter.window_start + policy.windowMs - now;
        retryAfter = Math.max(retryAfter, Math.max(1, Math.ceil(remaining / 1000)));
      }
    }
    if (retryAfter > 0) throw new ThrottledError(retryAfter);
  }

  private async counted(attempts: number, now: number): Promise<void> {
    this.sincePrune += attempts;
    if (this.sincePrune >= PRUNE_EVERY) {
      this.sincePrune = 0;
      const longest = Math.max(...Object.values(this.policies).map((p) => p.windowMs));
      await this.store.prune(now - longest);
    }
  }

  /** Failures counted in the current window (0 once it has ended). */
  async failures(kind: ThrottleKind, key: string): Promise<number> {
    const counter = (await this.store.counters([`${kind}:${key}`])).get(`${kind}:${key}`);
    if (!counter || this.clock.now() - counter.window_start >= this.policies[kind].windowMs) {
      return 0;
    }
    return counter.failures;
  }
}
