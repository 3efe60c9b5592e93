/**
 * Listing versions for conditional polling: what an `ETag` of an event list is built from, so a
 * poll whose tag still matches is answered 304 without running the listing.
 *
 * The version is a counter the database moves on every committed write to what event listings
 * show (triggers, migration 009): a new event, a membership, a project's visibility, a title, a
 * user blocked… Any such write changes every listing's tag, so a 304 is never sent for a body that
 * would differ. It is read before the listing is: a write landing in between makes the body newer
 * than its tag, and the next poll then reads a newer version and gets a 200 (never a stale 304).
 *
 * One catch: where the listing caches cannot see writes (PostgreSQL), counts and seek checkpoints
 * may lag a write by up to the cache's TTL (listing-cache.ts), so a body built soon after a change
 * may not be what the version promises. Such a version is "unsettled" until SETTLE_MS have passed
 * since this process first saw it; until then responses are tagged by their bytes instead (see
 * http/conditional.ts), and only a settled version answers a 304 without a listing.
 */
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';

/**
 * How long a new version stays unsettled: a bound on how late any process's listing caches can
 * take in a write made elsewhere (they follow the change feed well within it).
 */
export const SETTLE_MS = 5_000;

export interface ListingStamp {
  version: number;
  /** True when a body built now is exactly what `version` stands for. */
  settled: boolean;
}

export class ListingVersions {
  /** The newest version this process has seen and when it first saw it (the service's clock). */
  private newest: { version: number; at: number } | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async stamp(): Promise<ListingStamp> {
    const version = await this.store.listingVersion.read();
    // SQLite: every cache is dropped on any commit (data_version), so bodies are always exact.
    if (this.store.dataVersion() !== null) return { version, settled: true };
    const now = this.clock.now();
    if (!this.newest || version > this.newest.version) this.newest = { version, at: now };
    const settled = version === this.newest.version && now - this.newest.at >= SETTLE_MS;
    return { version, settled };
  }
}
