/**
 * What the listing cache reads before it answers: a snapshot (the settled head, the epochs, the
 * deletions, the listing version, from one statement) and the change feed, the newest event id
 * per project and author that moved since, read once per head move and shared by every listing
 * (docs/listing-caches.md, "Bringing an entry forward").
 */
import { sharedPerTurn } from '../../store/per-turn.js';
import type { ListingHead } from '../../store/events.js';
import type { Store } from '../../store/store.js';

export interface ListingSnapshot {
  /** The settled head: every event id at or below it is committed or never will be. */
  id: number;
  /** The all-projects epoch. */
  epoch: number;
  /** Per-project epochs read no later than this snapshot's queries (0 when absent). */
  epochs: ReadonlyMap<number, number>;
  /** Event deletions so far: when it moves, every mark is suspect (ids can be reused). */
  deletions: number;
  /** The listing version: moves when what written events show changes. */
  version: number;
  /** PostgreSQL: the turn reading its head came from (`TurnReading.seq`). */
  seq?: number;
}

/** What the change feed keeps newest ids by, besides the owner. */
export interface FeedFilter {
  action?: number;
  targetType?: string;
}

/** A head further than this from the last one is not read event by event: marks start over. */
const MAX_FEED_GAP = 20_000;

export class ListingClock {
  private snapshot: ListingSnapshot | null = null;
  private dataVersion: number | null = null;
  /** One read per event-loop turn (store/per-turn.ts). */
  private readonly shared = sharedPerTurn(() => this.read(this.store.dataVersion()));
  /** PostgreSQL: the snapshot being made from the newest turn reading, by its number. */
  private building: { seq: number; snapshot: Promise<ListingSnapshot> } | null = null;
  private epochs: ReadonlyMap<number, number> = new Map();
  private epochsAt = -1;
  /** Ids at or below `synced` are in `last`; ids from `floor` on are known there. */
  private synced = -1;
  private floorId = 0;
  private deletions = -1;
  /** Newest id per owner (`p<project>`, `a<author>`), alone or with `:<action>`, `:t<target type>`. */
  private readonly last = new Map<string, number>();
  /** The projects and authors `last` holds, for sets larger than them (`lastMatchingOf`). */
  private readonly seen = { p: new Set<number>(), a: new Set<number>() };
  private feed: Promise<void> = Promise.resolve();

  constructor(private readonly store: Store) {}

  /** Marks below this id may have missed events in the feed: those listings walk anyway. */
  get floor(): number {
    return this.floorId;
  }

  /** The newest event id of `owner` the feed saw that could match the filter, or 0. */
  lastMatching(owner: string, filter: FeedFilter): number {
    const { action, targetType } = filter;
    return Math.min(
      this.last.get(owner) ?? 0,
      action === undefined ? Infinity : (this.last.get(`${owner}:${action}`) ?? 0),
      targetType === undefined ? Infinity : (this.last.get(`${owner}:t${targetType}`) ?? 0),
    );
  }

  /** The newest of `lastMatching` over a set of projects (`p`) or authors (`a`) in id order. */
  lastMatchingOf(kind: 'p' | 'a', ids: readonly number[], filter: FeedFilter): number {
    let newest = 0;
    for (const id of this.seenAmong(kind, ids)) {
      newest = Math.max(newest, this.lastMatching(`${kind}${id}`, filter));
    }
    return newest;
  }

  /** The members of a set (as `lastMatchingOf`) the feed saw an event of the filter of after `since`. */
  changedAmong(
    kind: 'p' | 'a',
    ids: readonly number[],
    filter: FeedFilter,
    since: number,
  ): number[] {
    const changed: number[] = [];
    for (const id of this.seenAmong(kind, ids)) {
      if (this.lastMatching(`${kind}${id}`, filter) > since) changed.push(id);
    }
    return changed;
  }

  /**
   * The members of `ids` (in id order) the feed saw at all: by the owners it saw when they are
   * fewer than the set's (hundreds of stars or follows, a few dozen projects and authors moving).
   */
  private seenAmong(kind: 'p' | 'a', ids: readonly number[]): Iterable<number> {
    const seen = this.seen[kind];
    if (seen.size < ids.length) return [...seen].filter((id) => sortedHas(ids, id));
    return ids.filter((id) => seen.has(id));
  }

  /**
   * The snapshot to answer from, read after the caller arrived: on SQLite reused while the data
   * version stands still; elsewhere one per turn reading (store/per-turn.ts).
   */
  current(): Promise<ListingSnapshot> {
    const version = this.store.dataVersion();
    const known = this.snapshot;
    if (version !== null && known && version === this.dataVersion) {
      return Promise.resolve(known);
    }
    return version === null ? this.read(null) : this.shared();
  }

  private async read(version: number | null): Promise<ListingSnapshot> {
    const head = await this.store.events.head();
    if (head.seq === undefined) return this.snapshotOf(head, version);
    // One snapshot per PostgreSQL reading: its epochs and feed are read once, not per request.
    if (this.building?.seq !== head.seq) {
      const building = { seq: head.seq, snapshot: this.snapshotOf(head, version) };
      this.building = building;
      // A failed snapshot fails its callers only; the next caller of that reading tries again.
      building.snapshot.catch(() => {
        if (this.building === building) this.building = null;
      });
    }
    return this.building.snapshot;
  }

  private async snapshotOf(head: ListingHead, version: number | null): Promise<ListingSnapshot> {
    let epochs = this.epochs;
    if (head.epoch !== this.epochsAt) {
      // Read after the head, so nothing cached is older than the epochs it is filed under.
      epochs = await this.store.events.epochs();
      if (head.epoch > this.epochsAt) {
        this.epochs = epochs;
        this.epochsAt = head.epoch;
      }
    }
    await this.follow(head.id, head.deletions);
    const snapshot: ListingSnapshot = {
      id: head.id,
      epoch: head.epoch,
      epochs,
      deletions: head.deletions,
      version: head.version,
      ...(head.seq !== undefined ? { seq: head.seq } : {}),
    };
    const known = this.snapshot;
    const newer =
      !known ||
      (snapshot.seq !== undefined && known.seq !== undefined
        ? snapshot.seq >= known.seq
        : snapshot.id >= known.id);
    if (newer) {
      this.snapshot = snapshot;
      this.dataVersion = version;
    }
    return snapshot;
  }

  /** Brings the feed maps up to `head`, one reader at a time. */
  private follow(head: number, deletions: number): Promise<void> {
    const run = this.feed.then(async () => {
      const reset = deletions !== this.deletions;
      this.deletions = deletions;
      if (head <= this.synced && !reset) return;
      if (reset || this.synced < 0 || head - this.synced > MAX_FEED_GAP) {
        // First read, or a bulk load: start the feed here; older marks walk instead of trusting it.
        this.last.clear();
        this.seen.p.clear();
        this.seen.a.clear();
        this.floorId = head;
        this.synced = head;
        return;
      }
      for (const c of await this.store.events.changes(this.synced, head)) {
        this.seen.p.add(c.project_id);
        this.seen.a.add(c.author_id);
        for (const owner of [`p${c.project_id}`, `a${c.author_id}`]) {
          this.last.set(owner, c.id);
          this.last.set(`${owner}:${c.action}`, c.id);
          if (c.target_type !== null) this.last.set(`${owner}:t${c.target_type}`, c.id);
        }
      }
      this.synced = head;
    });
    // A failed read fails its caller; the next one retries from the same mark.
    this.feed = run.catch(() => {});
    return run;
  }
}

/** Whether `ids`, in ascending order, holds `id` (a binary search). */
function sortedHas(ids: readonly number[], id: number): boolean {
  let low = 0;
  let high = ids.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = ids[middle]!;
    if (at === id) return true;
    if (at < id) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}
