/**
 * Live activity: knows when new events exist and hands each subscriber the ones it may list.
 *
 * Knowing: a write in this process announces its events after commit (`eventHooks.afterCommit`,
 * instant). Other processes' writes: on PostgreSQL the `events` trigger of migration 010 notifies
 * on commit and a dedicated connection LISTENs (plus a slow poll in case that connection drops);
 * on SQLite the data version is polled every `pollMs` (250 ms by default: the bound on the delay
 * for a write made by another process).
 *
 * Handing out: subscribers with the same viewer, source and filter form a group. For each round,
 * the events after the last round are read once (ids and a few columns); a group whose source or
 * filter cannot match any of them just moves on, and each other group reads its own listing (the
 * activity service's, with visibility in SQL, re-resolved now: a member removed a moment ago sees
 * no more) with an `id > last delivered` keyset window in ascending order. Event ids are handed
 * out in commit order (SQLite has one writer; PostgreSQL serializes event inserts in migration
 * 010), so following ids never skips a late commit, and a stream drops ids at or below the last
 * one it got: no event twice, none out of order.
 */
import { NotFoundError } from '../../domain/errors.js';
import type { EventFilter } from '../../domain/filters.js';
import { actionCode } from '../../domain/vocabulary.js';
import type { Store } from '../../store/store.js';
import type {
  ActivityService,
  ActivitySource,
  EventListing,
  EventView,
} from '../activity/activity.js';
import type { EventHooks } from '../activity/event-hooks.js';
import { hydrateEvents } from '../activity/event-views.js';
import {
  DRAIN_TIMEOUT_MS,
  type LiveRequest,
  LiveStream,
  QUEUE_HIGH_WATER,
  SlowConsumerError,
} from './live-stream.js';

export { LiveStream, SlowConsumerError, MAX_QUEUED_EVENTS } from './live-stream.js';
export type { LiveRequest, LiveSource } from './live-stream.js';

export interface LiveOptions {
  /** SQLite: how often the data version is compared (other processes' writes). */
  pollMs?: number;
  /** PostgreSQL: a poll behind LISTEN, in case the listening connection is lost. */
  fallbackPollMs?: number;
  /** How often every group re-reads its listing even without new events (access removed). */
  recheckMs?: number;
}

interface Group {
  key: string;
  request: LiveRequest;
  streams: Set<LiveStream>;
  /** Read this group's listing next round whatever the new events are (after a failure, a recheck). */
  dirty: boolean;
}

type NewEventRow = Awaited<ReturnType<Store['events']['appendedAfter']>>[number];

const WINDOW = 100;
const SCAN = 1_000;

export class LiveActivity {
  private readonly groups = new Map<string, Group>();
  /** Every event id up to here has been handed to the groups that existed then. */
  private horizon = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private timers: NodeJS.Timeout[] = [];
  private listener: { close(): Promise<void> } | null = null;
  private lastVersion: number | null = null;
  private started = false;
  private stopped = false;
  private readonly pollMs: number;
  private readonly fallbackPollMs: number;
  private readonly recheckMs: number;
  /** Where failures go (the server sets its logger); a failed round is retried on the next. */
  report: (error: unknown) => void = () => {};

  constructor(
    private readonly store: Store,
    private readonly activity: ActivityService,
    hooks: EventHooks,
    options: LiveOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.fallbackPollMs = options.fallbackPollMs ?? 2_000;
    this.recheckMs = options.recheckMs ?? 3_000;
    hooks.afterCommit(() => this.wake());
  }

  /** Subscriptions open right now. */
  get size(): number {
    let n = 0;
    for (const group of this.groups.values()) n += group.streams.size;
    return n;
  }

  /** Starts watching for other processes' writes. Idempotent. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.horizon = await this.store.events.newestId();
    try {
      this.listener = await this.store.listenForEvents(
        () => this.wake(),
        (error) => this.listenerFailed(error),
      );
    } catch (error) {
      // The fallback poll below still finds new events, only more slowly.
      this.report(error);
    }
    // Where commits can be observed in-process (SQLite), polling that is cheap and prompt;
    // elsewhere notifications wake us, and a slower poll covers a lost one.
    this.lastVersion = this.store.dataVersion();
    if (this.lastVersion !== null) {
      this.every(this.pollMs, () => {
        const version = this.store.dataVersion();
        if (version !== this.lastVersion) {
          this.lastVersion = version;
          this.wake();
        }
      });
    } else {
      this.every(this.fallbackPollMs, () => this.wake());
    }
    this.every(this.recheckMs, () => {
      for (const group of this.groups.values()) group.dirty = true;
      this.wake();
    });
  }

  /** Ends every stream and stops watching. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    for (const group of [...this.groups.values()]) for (const s of [...group.streams]) s.end();
    await this.running;
    await this.listener?.close();
    this.listener = null;
  }

  /**
   * A stream of the events, from now on, that `request`'s viewer could list from its source. The
   * source must already be resolved for the viewer (a face does that, answering NOT_FOUND).
   */
  async subscribe(request: LiveRequest): Promise<LiveStream> {
    if (!request.viewer && request.source.kind !== 'project' && request.source.kind !== 'user') {
      throw new Error(`a ${request.source.kind} stream needs a viewer`);
    }
    const start = await this.store.events.newestId();
    // Rounds without streams skip the database, so the horizon may be old: nobody needs the
    // events below this stream's start.
    if (this.groups.size === 0) this.horizon = Math.max(this.horizon, start);
    const key = groupKey(request);
    let group = this.groups.get(key);
    if (!group) {
      group = { key, request, streams: new Set(), dirty: false };
      this.groups.set(key, group);
    }
    const owner = group;
    const stream = new LiveStream(request, start, (closed) => {
      owner.streams.delete(closed);
      if (owner.streams.size === 0 && this.groups.get(owner.key) === owner)
        this.groups.delete(owner.key);
    });
    if (this.stopped) stream.end();
    else group.streams.add(stream);
    return stream;
  }

  /** Something may have been written: run a round now, or right after the one running. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.rounds().finally(() => {
      this.running = null;
    });
  }

  private async rounds(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.round();
      } catch (error) {
        this.report(error);
      }
    } while (this.again && !this.stopped);
  }

  private async round(): Promise<void> {
    // No streams: nothing to read. The first subscription brings the horizon forward itself, so
    // an idle server asks the database nothing on the recheck and fallback timers.
    if (this.groups.size === 0) return;
    const rows: NewEventRow[] = [];
    for (;;) {
      const batch = await this.store.events.appendedAfter(rows.at(-1)?.id ?? this.horizon, SCAN);
      rows.push(...batch);
      if (batch.length < SCAN) break;
    }
    const newest = rows.at(-1)?.id ?? this.horizon;
    // Each event is hydrated once per round, whatever the number of groups that may see it.
    const views = new Map<number, EventView>();
    for (const group of [...this.groups.values()]) {
      if (this.stopped) return;
      if (group.streams.size === 0) continue;
      if (!group.dirty && !rows.some((row) => concerns(group.request, row))) {
        for (const stream of group.streams) stream.advance(newest);
        continue;
      }
      try {
        await this.deliver(group, newest, views);
        group.dirty = false;
      } catch (error) {
        group.dirty = true;
        this.report(error);
      }
    }
    this.horizon = Math.max(this.horizon, newest);
  }

  /** Reads the group's listing after its slowest stream and hands the events out. */
  private async deliver(
    group: Group,
    newest: number,
    hydrated: Map<number, EventView>,
  ): Promise<void> {
    const listing = await this.listing(group.request);
    if (!listing) {
      for (const stream of [...group.streams]) stream.end();
      return;
    }
    let after = Infinity;
    for (const stream of group.streams) after = Math.min(after, stream.last);
    let reached = newest;
    for (;;) {
      const rows = await listing.rows({ afterId: after, limit: WINDOW });
      const missing = rows.filter((row) => !hydrated.has(row.id));
      for (const view of await hydrateEvents(this.store, missing)) hydrated.set(view.id, view);
      const views = rows.map((row) => hydrated.get(row.id)!);
      for (const stream of [...group.streams]) stream.push(views);
      await this.letDrain(group);
      if (rows.length > 0) {
        after = rows.at(-1)!.id;
        reached = Math.max(reached, after);
      }
      if (rows.length < WINDOW) break;
    }
    for (const stream of group.streams) stream.advance(reached);
  }

  /**
   * Before the next window of a burst: waits for subscribers with a backlog to take it; one that
   * takes nothing within the timeout is dropped as too slow (its consumer sees SlowConsumerError).
   */
  private async letDrain(group: Group): Promise<void> {
    const behind = [...group.streams].filter((s) => s.backlog > QUEUE_HIGH_WATER);
    await Promise.all(
      behind.map(async (stream) => {
        if (!(await stream.drained(QUEUE_HIGH_WATER / 2, DRAIN_TIMEOUT_MS)))
          stream.fail(new SlowConsumerError());
      }),
    );
  }

  /** The listing behind a request, resolved for its viewer now; null when no longer readable. */
  private async listing(request: LiveRequest): Promise<EventListing | null> {
    const { viewer, source } = request;
    const filter: EventFilter = { ...request.filter, sort: 'asc' };
    try {
      const of: ActivitySource =
        source.kind === 'project'
          ? { kind: 'project', idOrPath: String(source.projectId) }
          : source.kind === 'user'
            ? { kind: 'user', idOrUsername: String(source.userId) }
            : { kind: 'viewer', scope: source.kind === 'memberships' ? 'all' : source.kind };
      return await this.activity.listingOf(of, filter, viewer);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  private every(ms: number, run: () => void): void {
    const timer = setInterval(run, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** The LISTEN connection failed: report it, poll meanwhile, and listen again shortly. */
  private listenerFailed(error: unknown): void {
    this.report(error);
    const failed = this.listener;
    this.listener = null;
    void failed?.close();
    if (this.stopped) return;
    const retry = setTimeout(() => {
      if (this.stopped) return;
      this.store
        .listenForEvents(
          () => this.wake(),
          (again) => this.listenerFailed(again),
        )
        .then((listener) => {
          if (this.stopped) void listener?.close();
          else this.listener = listener;
          this.wake();
        })
        .catch((again: unknown) => this.listenerFailed(again));
    }, 1_000);
    retry.unref();
  }
}

/** Subscribers that see exactly the same events share one key. */
function groupKey(request: LiveRequest): string {
  const { viewer, source, filter } = request;
  return JSON.stringify([
    viewer ? [viewer.userId, viewer.admin] : null,
    source,
    filter.action ?? null,
    filter.targetType ?? null,
    filter.createdBefore ?? null,
    filter.createdFrom ?? null,
  ]);
}

/** Whether a new event could be in the request's listing (visibility is the listing's to say). */
function concerns(request: LiveRequest, row: NewEventRow): boolean {
  const { source, filter } = request;
  if (source.kind === 'project' && row.project_id !== source.projectId) return false;
  if (source.kind === 'user' && row.author_id !== source.userId) return false;
  if (filter.action && row.action !== actionCode(filter.action)) return false;
  if (filter.targetType && row.target_type !== filter.targetType) return false;
  return true;
}
