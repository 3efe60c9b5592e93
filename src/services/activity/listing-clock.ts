/**
 * What a listing cache needs to know before it answers: how far the event log has settled (the
 * head), the listing epochs (changes that alter events already written: visibility, membership,
 * confidentiality, deletions), and which projects and authors received events since a given id.
 *
 * The last part is a change feed read once per head move and shared by every listing of this
 * process: a write to project A moves A's last-change id only, so a cached listing of project B
 * sees that nothing of its own changed without asking the database anything.
 *
 * Exactness: the head and the all-projects epoch come from one statement. Every id at or below the
 * head is settled (store/events.ts `head`), so walking ids above a listing's mark up to the head
 * finds every event the listing missed, on SQLite and on PostgreSQL, with any number of processes.
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
  /**
   * The listing version, read with the head: it moves when what written events show changes
   * (titles, names, notes…), so hydrated pages filed under another version are stale.
   */
  version: number;
  /** PostgreSQL: the turn reading its head came from (`TurnReading.seq`). */
  seq?: number;
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
  /** Ids at or below `synced` are in the feed maps; ids from `floor` on are known there. */
  private synced = -1;
  private floorId = 0;
  private deletions = -1;
  private readonly byProject = new Map<number, number>();
  private readonly byAuthor = new Map<number, number>();
  /** The same per project (`p<id>`) or author (`a<id>`) and action code or target type. */
  private readonly byAction = new Map<string, number>();
  private readonly byTarget = new Map<string, number>();
  private feed: Promise<void> = Promise.resolve();

  constructor(private readonly store: Store) {}

  /** Marks below this id may have missed events in the feed: those listings walk anyway. */
  get floor(): number {
    return this.floorId;
  }

  /**
   * The newest event id of a project (or author) this process has seen in the feed that could
   * match a filter on action and target type, or 0: no event newer than this one matches (an event
   * matching both is counted under both).
   */
  lastMatching(
    owner: { projectId: number } | { authorId: number },
    filter: { action?: number; targetType?: string },
  ): number {
    const project = 'projectId' in owner;
    const key = project ? `p${owner.projectId}` : `a${owner.authorId}`;
    let last =
      (project ? this.byProject.get(owner.projectId) : this.byAuthor.get(owner.authorId)) ?? 0;
    if (filter.action !== undefined) {
      last = Math.min(last, this.byAction.get(`${key}:${filter.action}`) ?? 0);
    }
    if (filter.targetType !== undefined) {
      last = Math.min(last, this.byTarget.get(`${key}:${filter.targetType}`) ?? 0);
    }
    return last;
  }

  /**
   * The snapshot to answer from, read after the caller arrived. On SQLite it is reused while the
   * database's data version stands still (nothing committed anywhere); elsewhere one read is shared
   * by callers of the same turn reading (store/per-turn.ts), one snapshot made per reading.
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
    // Requests of one PostgreSQL reading ask together: one snapshot per reading, so its
    // epochs and its walk of the change feed are read once, not once per request.
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
      // Read after the head: a listing records these epochs before its own queries run, so what
      // it caches is never older than the epochs it is filed under. Snapshots of different
      // readings may be made concurrently: each takes the epochs read after its own head, and the
      // newest are kept.
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
        this.byProject.clear();
        this.byAuthor.clear();
        this.byAction.clear();
        this.byTarget.clear();
        this.floorId = head;
        this.synced = head;
        return;
      }
      for (const change of await this.store.events.changes(this.synced, head)) {
        this.byProject.set(change.project_id, change.id);
        this.byAuthor.set(change.author_id, change.id);
        for (const key of [`p${change.project_id}`, `a${change.author_id}`]) {
          this.byAction.set(`${key}:${change.action}`, change.id);
          if (change.target_type !== null) {
            this.byTarget.set(`${key}:${change.target_type}`, change.id);
          }
        }
      }
      this.synced = head;
    });
    // A failed read fails its caller; the next one retries from the same mark.
    this.feed = run.catch(() => {});
    return run;
  }
}
