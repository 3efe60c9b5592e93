/**
 * Remembers, per listing, the capped count and "seek checkpoints" (the event id found at every
 * CHECKPOINT-th row). A deep offset page then walks from the nearest checkpoint instead of from the
 * first row, so page 400 costs about what page 1 costs. Entries die when the database changes:
 * on SQLite exactly (PRAGMA data_version), elsewhere after a short TTL, since other processes may
 * write without telling us.
 */
export const CHECKPOINT = 200;
const TTL_MS = 5_000;
const MAX_ENTRIES = 5_000;

interface Entry {
  version: number | null;
  expires: number;
  count?: number;
  /** checkpoint index k → id of the row at offset k * CHECKPOINT (k ≥ 1). */
  checkpoints: Map<number, number>;
}

export class ListingCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly dataVersion: () => number | null) {}

  /** The live entry for a listing key, creating a fresh one when stale or absent. */
  entry(key: string, now: number): Entry {
    const version = this.dataVersion();
    const found = this.entries.get(key);
    if (found && found.version === version && (version !== null || found.expires > now))
      return found;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const fresh: Entry = { version, expires: now + TTL_MS, checkpoints: new Map() };
    this.entries.set(key, fresh);
    return fresh;
  }
}
