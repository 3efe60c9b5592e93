/**
 * One listing of events (a source, a filter, a viewer) as the faces hold it: opaque, so no face
 * sees the store's query. GraphQL pages through it with keyset windows (cursor = event id); the
 * windows and the capped count are cached like REST's offset pages (see listing-cache.ts).
 */
import type { Metrics } from '../metrics.js';
import { MAX_COUNT, reportedTotal } from '../../domain/pagination.js';
import type { EventQuery } from '../../store/events.js';
import type { EventRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { type EventView, hydrateEvents } from './event-views.js';
import { type ListingCache, rememberPage } from './listing-cache.js';

export interface KeysetWindow {
  /** Ids strictly beyond this one in the sort direction. */
  afterId?: number;
  /** Ids strictly before this one in the sort direction. */
  beforeId?: number;
  limit: number;
  /** Walk from the far end (backward pagination); rows still come back in sort order. */
  reverse?: boolean;
}

/** What a listing needs from the activity service; shared by every listing of one server. */
export interface ListingContext {
  store: Store;
  clock: Clock;
  /** Counts and checkpoints (shared with REST's offset pages). */
  counts: ListingCache;
  /** Hydrated keyset windows. */
  windows: ListingCache;
  metrics: Metrics;
}

export class EventListing {
  /** A listing that is empty by rule (a private or blocked profile answers `[]`, not 404). */
  static readonly EMPTY = new EventListing(null, null);

  /** @internal built by the activity service only. */
  constructor(
    private readonly context: ListingContext | null,
    private readonly q: EventQuery | null,
  ) {}

  get sort(): 'asc' | 'desc' {
    return this.q?.filter.sort ?? 'desc';
  }

  /** The window's events in sort order, hydrated (`limit` at most). */
  async window(window: KeysetWindow): Promise<EventView[]> {
    const { context, q } = this;
    if (!context || !q) return [];
    const entry = context.windows.entry<EventView[]>(listingKey(q), context.clock.now());
    const windowKey = `${window.afterId ?? ''}:${window.beforeId ?? ''}:${window.limit}:${window.reverse ? 1 : 0}`;
    const cached = entry.pages?.get(windowKey);
    if (entry.pages) context.metrics.cacheLookup('graphql_window', cached !== undefined);
    if (cached) return cached;
    const rows = await context.store.events.list(q, { kind: 'keyset', ...window });
    const views = await hydrateEvents(context.store, rows);
    rememberPage(entry, windowKey, views);
    return views;
  }

  /**
   * The window's rows in sort order, not hydrated and not cached: live delivery reads one window
   * per subscriber group and hydrates each event once for all of them.
   */
  async rows(window: KeysetWindow): Promise<EventRow[]> {
    const { context, q } = this;
    if (!context || !q) return [];
    return context.store.events.list(q, { kind: 'keyset', ...window });
  }

  /** Whether any event lies in the window (no hydration). */
  async any(window: Omit<KeysetWindow, 'limit'>): Promise<boolean> {
    const { context, q } = this;
    if (!context || !q) return false;
    const rows = await context.store.events.list(q, { kind: 'keyset', ...window, limit: 1 });
    return rows.length > 0;
  }

  /** The capped count (null above the reporting cap), cached like REST's. */
  async total(): Promise<number | null> {
    const { context, q } = this;
    if (!context || !q) return 0;
    const entry = context.counts.entry(listingKey(q), context.clock.now());
    if (entry.count === undefined) entry.count = await context.store.events.count(q, MAX_COUNT);
    return reportedTotal(entry.count);
  }
}

/** Everything that changes a listing's rows, as a stable key. */
export function listingKey(q: EventQuery): string {
  const f = q.filter;
  return [
    JSON.stringify(q.source),
    q.viewer ? `${q.viewer.userId}:${q.viewer.admin ? 1 : 0}` : '-',
    f.action ?? '',
    f.targetType ?? '',
    f.kinds ? JSON.stringify(f.kinds) : '',
    f.createdBefore ?? '',
    f.createdFrom ?? '',
    f.sort,
  ].join('|');
}
