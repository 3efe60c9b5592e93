import type { Store } from '../../src/store/store.js';

/**
 * Counts the listing queries (pages and counts) a server runs through its store from now on: a
 * 304 or a kept response runs none, a listing built again runs at least one.
 */
export function countListingQueries(store: Store): () => number {
  let listings = 0;
  const events = store.events;
  for (const name of ['list', 'count'] as const) {
    const original = events[name].bind(events) as (...args: unknown[]) => Promise<unknown>;
    (events as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      listings++;
      return original(...args);
    };
  }
  return () => listings;
}
