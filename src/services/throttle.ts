/**
 * Counting failed attempts (passwords, client secrets) per account, per address and per client
 * source, in fixed windows on the injected clock. Once a key reaches its limit every attempt is
 * refused until the window ends — a correct password included — and a success resets the
 * account's counter. Kept in memory: one pulsegate process owns its counters, and a restart only
 * forgives an attacker a few minutes.
 */
import { ThrottledError } from '../domain/oauth.js';
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

interface Counter {
  failures: number;
  windowStart: number;
}

const MAX_KEYS = 50_000;

export class ThrottleService {
  private readonly counters = new Map<string, Counter>();

  constructor(
    private readonly clock: Clock,
    private readonly policies: Record<ThrottleKind, ThrottlePolicy> = THROTTLE_POLICIES,
  ) {}

  /** Throws ThrottledError when any of the keys is locked. */
  check(keys: ReadonlyArray<[ThrottleKind, string]>): void {
    let retryAfter = 0;
    for (const [kind, key] of keys) {
      const counter = this.live(kind, key);
      const policy = this.policies[kind];
      if (counter && counter.failures >= policy.limit) {
        const remaining = counter.windowStart + policy.windowMs - this.clock.now();
        retryAfter = Math.max(retryAfter, Math.max(1, Math.ceil(remaining / 1000)));
      }
    }
    if (retryAfter > 0) throw new ThrottledError(retryAfter);
  }

  fail(keys: ReadonlyArray<[ThrottleKind, string]>): void {
    const now = this.clock.now();
    for (const [kind, key] of keys) {
      const id = `${kind}:${key}`;
      const counter = this.live(kind, key);
      if (counter) counter.failures += 1;
      else this.counters.set(id, { failures: 1, windowStart: now });
    }
    if (this.counters.size > MAX_KEYS) this.prune();
  }

  reset(kind: ThrottleKind, key: string): void {
    this.counters.delete(`${kind}:${key}`);
  }

  failures(kind: ThrottleKind, key: string): number {
    return this.live(kind, key)?.failures ?? 0;
  }

  private live(kind: ThrottleKind, key: string): Counter | undefined {
    const id = `${kind}:${key}`;
    const counter = this.counters.get(id);
    if (!counter) return undefined;
    if (this.clock.now() - counter.windowStart >= this.policies[kind].windowMs) {
      this.counters.delete(id);
      return undefined;
    }
    return counter;
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [id, counter] of this.counters) {
      const kind = id.slice(0, id.indexOf(':')) as ThrottleKind;
      if (now - counter.windowStart >= this.policies[kind].windowMs) this.counters.delete(id);
    }
  }
}
