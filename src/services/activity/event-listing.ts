/**
 * One listing of events (a source, a filter, a viewer) over the listing cache: its mark, REST's
 * offset pages, keyset windows (cursor = event id) and its capped count.
 */
import type { Metrics } from '../metrics.js';
import { type OffsetPage, reportedTotal } from '../../domain/pagination.js';
import type { EventQuery } from '../../store/events.js';
import type { EventRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { type EventView, hydrateEvents } from './event-views.js';
import { type ListingCache, remember, seek } from './listing-cache.js';
import type { ListingSnapshot } from './listing-clock.js';

export interface KeysetWindow {
  /** Ids strictly beyond this one in the sort direction. */
  afterId?: number;
  /** Ids strictly before this one in the sort direction. */
  beforeId?: number;
  limit: number;
  /** Walk from the far end (backward pagination); rows still come back in sort order. */
  reverse?: boolean;
}

export interface OffsetListing {
  events: EventView[];
  /** Exact count, or null above the reporting cap. */
  total: number | null;
  hasNext: boolean;
}

/** What a listing needs from the activity service; shared by every listing of one server. */
export interface ListingContext {
  store: Store;
  cache: ListingCache;
  metrics: Metrics;
}

export class EventListing {
  /** @param q The store query, or null when the listing is empty by rule (a private profile). */
  constructor(
    private readonly context: ListingContext,
    private readonly q: EventQuery | null,
  ) {}

  /** The listing's mark as of now (ListingCache `mark`), with the snapshot it was read at. */
  mark(page?: OffsetPage): Promise<{ mark: string; snapshot: ListingSnapshot }> {
    return this.context.cache.mark(this.q, page && pageBounds(page));
  }

  /** A REST offset page, read at `snapshot` when given (the one its mark was read at). */
  async page(page: OffsetPage, snapshot?: ListingSnapshot): Promise<OffsetListing> {
    if (!this.q) return { events: [], total: 0, hasNext: false };
    const { cache, metrics, store } = this.context;
    const { entry, q } = await cache.entry(this.q, snapshot);
    const { offset, limit } = pageBounds(page);
    const pageKey = `${offset}:${limit}`;
    let cached = entry.pages?.get(pageKey);
    if (entry.pages) metrics.cacheLookup('rest_page', cached !== undefined);
    if (cached?.shift) {
      const shifted = cached;
      cached = await cache.once(entry, `settle ${pageKey}`, () =>
        cache.settle(q, entry, pageKey, shifted),
      );
    }
    if (cached) return { ...cached, total: reportedTotal(await cache.count(q, entry)) };
    // A known count past the end: no need to ask the database.
    const known = entry.count === undefined ? null : pastTheEnd(entry.count, offset);
    if (known) return known;
    // Count and page in parallel where reads run in parallel; else count first, so a page past
    // the end is answered without a walk.
    const counting = cache.count(q, entry);
    if (!store.readsInParallel) {
      const empty = pastTheEnd(await counting, offset);
      if (empty) return empty;
    }
    const paging = cache.once(entry, `page ${pageKey}`, async () => {
      const { fromId, skip } = await seek(store, q, entry.checkpoints, offset);
      const rows =
        fromId === undefined
          ? []
          : await store.events.list(q, { kind: 'offset', offset: skip, limit: limit + 1 }, fromId);
      const computed = {
        events: await hydrateEvents(store, rows.slice(0, limit)),
        hasNext: rows.length > limit,
      };
      remember(entry.pages, pageKey, computed);
      return computed;
    });
    const [count, found] = await Promise.all([counting, paging]);
    return { ...found, total: reportedTotal(count) };
  }

  /** The window's events in sort order, hydrated (`limit` at most). */
  async window(window: KeysetWindow): Promise<EventView[]> {
    if (!this.q) return [];
    const { cache, metrics, store } = this.context;
    const { entry, q } = await cache.entry(this.q);
    const windowKey = `${window.afterId ?? ''}:${window.beforeId ?? ''}:${window.limit}:${window.reverse ? 1 : 0}`;
    const cached = entry.windows?.get(windowKey);
    if (entry.windows) metrics.cacheLookup('graphql_window', cached !== undefined);
    if (cached) return cached.views;
    return cache.once(entry, `window ${windowKey}`, async () => {
      const rows = await store.events.list(q, { kind: 'keyset', ...window }, null);
      const views = await hydrateEvents(store, rows);
      remember(entry.windows, windowKey, { ...window, views });
      return views;
    });
  }

  /** The window's rows in sort order, neither hydrated nor cached (live delivery). */
  async rows(window: KeysetWindow): Promise<EventRow[]> {
    if (!this.q) return [];
    return this.context.store.events.list(this.q, { kind: 'keyset', ...window });
  }

  /** Whether any event lies in the window (no hydration). */
  async any(window: Omit<KeysetWindow, 'limit'>): Promise<boolean> {
    return (await this.rows({ ...window, limit: 1 })).length > 0;
  }

  /** The capped count (null above the reporting cap), cached like REST's. */
  async total(): Promise<number | null> {
    if (!this.q) return 0;
    const { entry, q } = await this.context.cache.entry(this.q);
    return reportedTotal(await this.context.cache.count(q, entry));
  }
}

/** The empty page at `offset` of a listing whose reported count ends before it, or null. */
function pastTheEnd(count: number, offset: number): OffsetListing | null {
  const total = reportedTotal(count);
  return total !== null && offset >= total ? { events: [], total, hasNext: false } : null;
}

/** Where a REST page starts in its listing, and how many rows it holds. */
function pageBounds(page: OffsetPage): { offset: number; limit: number } {
  return { offset: (page.page - 1) * page.perPage, limit: page.perPage };
}
