/**
 * Keyset windows of events, hydrated, remembered while the database is unchanged: the cursor
 * counterpart of the page cache REST's offset listing uses (same `ListingCache`, same exact
 * invalidation on SQLite's data_version, no page caching where invalidation is not exact).
 */
import type { EventQuery } from '../store/events.js';
import type { ActivityService, EventView } from './activity.js';
import type { Clock } from './clock.js';
import { ListingCache, rememberPage } from './listing-cache.js';

export interface KeysetWindow {
  afterId?: number;
  beforeId?: number;
  limit: number;
  reverse?: boolean;
}

export class EventWindows {
  private readonly cache: ListingCache;

  constructor(
    private readonly activity: ActivityService,
    dataVersion: () => number | null,
    private readonly clock: Clock,
    pageCache = true,
  ) {
    this.cache = new ListingCache(dataVersion, pageCache);
  }

  /** The window's events in sort order, hydrated (`limit` rows at most). */
  async list(q: EventQuery, window: KeysetWindow): Promise<EventView[]> {
    // Everything that changes the rows: source, viewer, filter (built deterministically).
    const key = JSON.stringify([q.source, q.viewer, q.filter]);
    const entry = this.cache.entry<EventView[]>(key, this.clock.now());
    const windowKey = `${window.afterId ?? ''}:${window.beforeId ?? ''}:${window.limit}:${window.reverse ? 1 : 0}`;
    const cached = entry.pages?.get(windowKey);
    if (cached) return cached;
    const views = await this.activity.hydrate(await this.activity.listWindow(q, window));
    rememberPage(entry, windowKey, views);
    return views;
  }
}
