/**
 * Remembers, per listing, the capped count and "seek checkpoints" (the event id found at every
 * CHECKPOINT-th row). A deep offset page then walks from the nearest checkpoint instead of from the
 * first row, so page 400 costs about what page 1 costs. Entries die when the database changes:
 * on SQLite exactly (PRAGMA data_version), elsewhere after a short TTL, since other processes may
 * write without telling us.
 */
export const CHECKPOINT = 200;
export const TTL_MS = 5_000;
const MAX_ENTRIES = 5_000;
/** Pages remembered per listing; with 20-100 events a page this bounds memory to tens of MB. */
const MAX_PAGES_PER_ENTRY = 8;

export interface Entry<Page = unknown> {
  version: number | null;
  expires: number;
  count?: number;
  /** checkpoint index k → id of the row at offset k * CHECKPOINT (k ≥ 1). */
  checkpoints: Map<number, number>;
  /**
   * Whole pages by `offset:limit`, kept only where invalidation is exact (SQLite): elsewhere a page
   * could hide a new event for the TTL, which counts and checkpoints may tolerate but a feed not.
   */
  pages: Map<string, Page> | null;
}

export class ListingCache {
  private readonly entries = new Map<string, Entry>();

  /** `pages` false keeps counts and checkpoints but never whole pages (config `pageCache`). */
  constructor(
    private readonly dataVersion: () => number | null,
    private readonly pages = true,
  ) {}

  /** The live entry for a listing key, creating a fresh one when stale or absent. */
  entry<Page>(key: string, now: number): Entry<Page> {
    const version = this.dataVersion();
    const found = this.entries.get(key);
    if (found && found.version === version && (version !== null || found.expires > now))
      return found as Entry<Page>;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const fresh: Entry<Page> = {
      version,
      expires: now + TTL_MS,
      checkpoints: new Map(),
      pages: version === null || !this.pages ? null : new Map(),
    };
    this.entries.set(key, fresh);
    return fresh;
  }
}

/** Remembers a page in its entry, dropping the oldest page past the per-listing bound. */
export function rememberPage<Page>(entry: Entry<Page>, pageKey: string, page: Page): void {
  if (!entry.pages) return;
  if (entry.pages.size >= MAX_PAGES_PER_ENTRY) entry.pages.delete(entry.pages.keys().next().value!);
  entry.pages.set(pageKey, page);
}
