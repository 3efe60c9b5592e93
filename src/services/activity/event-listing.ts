/**
 * One listing of events (a source, a filter, a viewer) as the faces hold it: opaque, so no face
 * sees the store's query. GraphQL pages through it with keyset windows (cursor = event id); the
 * windows and the capped count are cached like REST's offset pages (see listing-cache.ts).
 */
import type { Metrics } from '../metrics.js';
import { reportedTotal } from '../../domain/pagination.js';
import type { EventQuery } from '../../store/events.js';
import type { EventRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { type EventView, hydrateEvents } from './event-views.js';
import { type ListingCache, remember } from './listing-cache.js';

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
  /** Counts, checkpoints, REST pages and GraphQL windows, brought forward as events arrive. */
  cache: ListingCache;
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

  /**
   * What the listing's answers are a function of, as of now (ListingCache `mark`): read before
   * its rows, an unchanged mark later means unchanged answers. A listing empty by rule answers the
   * same whatever is written.
   */
  async mark(): Promise<string> {
    const { context, q } = this;
    if (!context || !q) return 'empty';
    return (await context.cache.mark(q, undefined)).mark;
  }

  /** The window's events in sort order, hydrated (`limit` at most). */
  async window(window: KeysetWindow): Promise<EventView[]> {
    const { context } = this;
    if (!context || !this.q) return [];
    const { entry, q } = await context.cache.entry(this.q, undefined);
    const windowKey = `${window.afterId ?? ''}:${window.beforeId ?? ''}:${window.limit}:${window.reverse ? 1 : 0}`;
    const cached = entry.windows?.get(windowKey);
    if (entry.windows) context.metrics.cacheLookup('graphql_window', cached !== undefined);
    if (cached) return cached.views;
    // Readers of the same window at the same moment share one walk (see ListingCache `once`).
    return context.cache.once(entry, `window ${windowKey}`, async () => {
      const rows = await context.store.events.list(q, { kind: 'keyset', ...window }, null);
      const views = await hydrateEvents(context.store, rows);
      remember(entry.windows, windowKey, {
        views,
        afterId: window.afterId,
        beforeId: window.beforeId,
        limit: window.limit,
        reverse: window.reverse ?? false,
      });
      return views;
    });
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
    const { context } = this;
    if (!context || !this.q) return 0;
    const { entry, q } = await context.cache.entry(this.q, undefined);
    return reportedTotal(await context.cache.count(q, entry));
  }
}
