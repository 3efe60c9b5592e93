/**
 * The API request budget: requests per key in fixed windows on the injected clock, counted in the
 * database (store/request-counters.ts), so N processes over one database give one limit.
 */
import type { RequestCounters } from '../../store/request-counters.js';
import type { Clock } from '../clock.js';

/** Windows that ended are swept after this many requests (per process). */
const PRUNE_EVERY = 10_000;

export interface Spent {
  /** Requests in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetInMs: number;
}

export class RequestBudget {
  private sincePrune = 0;

  constructor(
    private readonly counters: () => RequestCounters,
    private readonly clock: Clock,
  ) {}

  async spend(key: string, windowMs: number): Promise<Spent> {
    const now = this.clock.now();
    const counters = this.counters();
    const { hits, windowStart } = await counters.hit(key, now, windowMs);
    if (++this.sincePrune >= PRUNE_EVERY) {
      this.sincePrune = 0;
      await counters.prune(now - windowMs);
    }
    return { count: hits, resetInMs: windowStart + windowMs - now };
  }

  /** Gives back one request of `key`'s current window (a conditional request answered 304). */
  async refund(key: string, windowMs: number): Promise<void> {
    await this.counters().refund(key, this.clock.now(), windowMs);
  }
}
