/**
 * One subscriber's stream of events: an async iterator (what GraphQL subscriptions consume) over a
 * bounded queue. The live service pushes events in id order; the subscriber pulls them. A
 * subscriber that falls too far behind is ended with `SlowConsumerError` instead of growing the
 * queue without bound.
 */
import type { EventFilter } from '../../domain/filters.js';
import type { Viewer } from '../../domain/visibility.js';
import type { EventView } from '../activity/activity.js';

/** What a stream follows: one project, one user's events, or everything the viewer's projects do. */
export type LiveSource =
  | { kind: 'project'; projectId: number }
  | { kind: 'user'; userId: number }
  /** What `events(scope: ALL)` lists for the viewer (needs a viewer). */
  | { kind: 'memberships' }
  /**
   * What `events(scope: STARRED)` or `events(scope: FOLLOWED)` lists for the viewer (needs a
   * viewer): the stars and follows are read again each round, so taking or dropping one changes
   * the stream from the next event on.
   */
  | { kind: 'starred' }
  | { kind: 'followed' };

export interface LiveRequest {
  viewer: Viewer | null;
  source: LiveSource;
  /** Sort is ignored: a stream is always in id order. */
  filter: EventFilter;
}

/** Events waiting for a subscriber beyond this: the subscriber is too slow and is dropped. */
export const MAX_QUEUED_EVENTS = 1_000;
/**
 * A burst (an import, a busy minute) is handed over in windows: past this many waiting events the
 * live service waits for the subscriber to take them, up to DRAIN_TIMEOUT_MS, before the next
 * window; a subscriber that takes nothing for that long is dropped as too slow.
 */
export const QUEUE_HIGH_WATER = 200;
export const DRAIN_TIMEOUT_MS = 5_000;

export class SlowConsumerError extends Error {
  constructor() {
    super(`subscriber fell more than ${MAX_QUEUED_EVENTS} events behind`);
  }
}

export class LiveStream implements AsyncIterableIterator<EventView> {
  private readonly queue: EventView[] = [];
  private waiting: ((result: IteratorResult<EventView>) => void) | null = null;
  private failWaiting: ((error: unknown) => void) | null = null;
  private ended = false;
  private failure: unknown = null;
  private drainWaiters: Array<() => void> = [];

  constructor(
    readonly request: LiveRequest,
    /** The newest event id this stream has been given (or skipped as not its own). */
    public last: number,
    private readonly onClose: (stream: LiveStream) => void,
  ) {}

  get closed(): boolean {
    return this.ended;
  }

  /** Hands over events in id order; events at or below `last` are ignored (no duplicates). */
  push(events: readonly EventView[]): void {
    if (this.ended) return;
    for (const event of events) {
      if (event.id <= this.last) continue;
      this.last = event.id;
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = this.failWaiting = null;
        resolve({ value: event, done: false });
      } else if (this.queue.length >= MAX_QUEUED_EVENTS) {
        this.fail(new SlowConsumerError());
        return;
      } else {
        this.queue.push(event);
      }
    }
  }

  /** Events handed over and not yet taken. */
  get backlog(): number {
    return this.queue.length;
  }

  /**
   * Resolves true once at most `low` events wait (or the stream ended), false when `ms` passed
   * first.
   */
  drained(low: number, ms: number): Promise<boolean> {
    if (this.queue.length <= low || this.ended) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.drainWaiters = this.drainWaiters.filter((w) => w !== check);
        resolve(false);
      }, ms);
      const check = () => {
        if (this.queue.length > low && !this.ended) return;
        clearTimeout(timer);
        this.drainWaiters = this.drainWaiters.filter((w) => w !== check);
        resolve(true);
      };
      this.drainWaiters.push(check);
    });
  }

  private notifyDrain(): void {
    for (const check of [...this.drainWaiters]) check();
  }

  /** Nothing in (last, id] concerns this stream. */
  advance(id: number): void {
    if (id > this.last) this.last = id;
  }

  /** Ends the stream normally (its source is no longer readable, or the server stops). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onClose(this);
    this.notifyDrain();
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = this.failWaiting = null;
      resolve({ value: undefined, done: true });
    }
  }

  /** Ends the stream with an error the consumer sees on its next pull. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.failure = error;
    this.queue.length = 0;
    if (this.failWaiting) {
      const reject = this.failWaiting;
      this.waiting = this.failWaiting = null;
      this.ended = true;
      this.onClose(this);
      reject(error);
      return;
    }
    this.ended = true;
    this.onClose(this);
    this.notifyDrain();
  }

  next(): Promise<IteratorResult<EventView>> {
    const value = this.queue.shift();
    if (this.drainWaiters.length > 0) this.notifyDrain();
    if (value) return Promise.resolve({ value, done: false });
    if (this.failure !== null) {
      const error = this.failure;
      this.failure = null;
      return Promise.reject(error);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
    });
  }

  return(): Promise<IteratorResult<EventView>> {
    this.queue.length = 0;
    this.failure = null;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<EventView>> {
    this.queue.length = 0;
    this.end();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<EventView> {
    return this;
  }
}
