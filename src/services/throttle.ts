/**
 * Counting failed attempts (passwords, client secrets) per account, per address and per client
 * source, in fixed windows on the injected clock. Once a key reaches its limit every attempt is
 * refused until the window ends — a correct password included — and a success resets the
 * account's counter. Counters live in the database, so every process over it shares one budget and
 * a restart forgives nothing.
 */
import { ThrottledError } from '../domain/oauth.js';
import type { ThrottleStore } from '../store/throttle.js';
import type { Clock } from './clock.js';

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

/** Expired windows are swept after this many recorded failures. */
const PRUNE_EVERY = 1_000;

export class ThrottleService {
  private sincePrune = 0;

  constructor(
    private readonly store: ThrottleStore,
    private readonly clock: Clock,
    private readonly policies: Record<ThrottleKind, ThrottlePolicy> = THROTTLE_POLICIES,
  ) {}

  /** Throws ThrottledError when any of the keys is locked. */
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

  async fail(keys: ReadonlyArray<[ThrottleKind, string]>): Promise<void> {
    const now = this.clock.now();
    for (const [kind, key] of keys) {
      await this.store.fail(`${kind}:${key}`, now, this.policies[kind].windowMs);
    }
    this.sincePrune += keys.length;
    if (this.sincePrune >= PRUNE_EVERY) {
      this.sincePrune = 0;
      const longest = Math.max(...Object.values(this.policies).map((p) => p.windowMs));
      await this.store.prune(now - longest);
    }
  }

  reset(kind: ThrottleKind, key: string): Promise<void> {
    return this.store.reset(`${kind}:${key}`);
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
