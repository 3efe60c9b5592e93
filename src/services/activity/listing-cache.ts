/**
 * Remembers, per listing (a source, a filter, a viewer), what answering it cost: the capped count,
 * "seek checkpoints" (offset → id, so page 400 walks from a nearby id instead of from the first
 * row), REST pages and GraphQL keyset windows, all computed up to one event id, the entry's mark.
 *
 * Events are an append-only log. When the head moves past a mark, the entry is brought forward
 * instead of dropped:
 *
 * - nothing new for this listing (the change feed says its project or author got no events):
 *   the mark moves, no query at all;
 * - a few new events: one walk of the listing's index above the mark finds them (with filter and
 *   visibility), the count grows by that many, newest-first checkpoints shift by that many, the
 *   first page gets them prepended, and every page or window they cannot touch stays;
 * - an epoch moved (visibility, membership, confidentiality, a deletion), or too many new events:
 *   the entry starts over.
 *
 * Entries are never changed in place once forwarded: a request keeps answering from the entry it
 * started with, bounded by that entry's mark, so every number of one answer describes one moment.
 */
import { MAX_COUNT } from '../../domain/pagination.js';
import { actionCode } from '../../domain/vocabulary.js';
import { type EventQuery, dayOf } from '../../store/events.js';
import type { EventRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { Metrics } from '../metrics.js';
import { type EventView, hydrateEvents } from './event-views.js';
import type { ListingClock, ListingSnapshot } from './listing-clock.js';

export const CHECKPOINT = 200;
const MAX_ENTRIES = 5_000;
/** Pages (and windows) remembered per listing; with 20-100 events a page this bounds memory. */
const MAX_PAGES_PER_ENTRY = 8;
/** More new events than this in one listing: recounting is as cheap as walking them. */
const MAX_FORWARD = 500;
const MAX_CHECKPOINTS = 1_000;

/** A REST offset page as cached: its total comes from the entry's count. */
export interface CachedPage {
  events: EventView[];
  hasNext: boolean;
  /**
   * Rows that have since come before `events[0]` (newest first: new events pushed the page down).
   * The page stands once it is settled: those rows, then its own rows up to the page's size
   * (`ListingCache.settle`, one short walk instead of fetching and hydrating the whole page).
   */
  shift?: number;
}

/** A GraphQL keyset window as cached, with the bounds it was asked with. */
export interface CachedWindow {
  views: EventView[];
  afterId: number | undefined;
  beforeId: number | undefined;
  limit: number;
  reverse: boolean;
}

export interface Checkpoint {
  /** Offset in sort order, as of the entry's mark. */
  offset: number;
  id: number;
}

export interface Entry {
  /** The highest event id this entry reflects; its queries are bounded by it. */
  readonly upTo: number;
  /** The epoch (the project's, or all projects' for cross-project listings) it was built under. */
  readonly epoch: number;
  /** Event deletions when it was built: a deletion may free an id below the mark for reuse. */
  readonly deletions: number;
  /**
   * The listing version its pages and windows were hydrated under: when it moves (a title, a
   * name, a note changed), they are dropped and the count and checkpoints stay.
   */
  readonly version: number;
  /** Capped count: min(matching events, MAX_COUNT + 1). */
  count?: number;
  /** Sorted by offset. */
  checkpoints: Checkpoint[];
  /** REST pages by `offset:limit`; null when the page cache is off. */
  pages: Map<string, CachedPage> | null;
  /** GraphQL windows by their bounds; null when the page cache is off. */
  windows: Map<string, CachedWindow> | null;
}

/** A forward in progress: from which entry, to which head, and the entry it will give. */
interface Forwarding {
  from: Entry;
  head: number;
  done: Promise<Entry>;
}

/** The listing version and deletions, and the same with the newest event id (`versionMarks`). */
export interface VersionMarks {
  version: string;
  head: string;
}

export class ListingCache {
  private readonly entries = new Map<string, Entry>();
  /** Forwards in progress, by listing: readers arriving meanwhile wait for that one walk. */
  private readonly forwarding = new Map<string, Forwarding>();
  /** Work in progress on an entry (its count, a page, a window), by what it computes. */
  private readonly working = new WeakMap<Entry, Map<string, Promise<unknown>>>();

  /** `pages` false keeps counts and checkpoints but never whole pages (config `pageCache`). */
  constructor(
    private readonly store: Store,
    private readonly clock: ListingClock,
    private readonly metrics: Metrics,
    private readonly pages = true,
  ) {}

  /**
   * The current entry of a listing and the query bounded by its mark: fresh, forwarded, or as it
   * was when nothing of this listing changed. As of the snapshot `at`, else of the request's read
   * context (http/read-context.ts).
   */
  async entry(q: EventQuery, at?: ListingSnapshot): Promise<{ entry: Entry; q: EventQuery }> {
    const snapshot = at ?? (await this.clock.current());
    const key = listingKey(q);
    const epoch = this.epochOf(q, snapshot);
    let entry = this.entries.get(key);
    if (entry && (entry.epoch !== epoch || entry.deletions !== snapshot.deletions)) {
      this.metrics.listingRefresh('rebuilt');
      entry = undefined;
    }
    if (entry && entry.version < snapshot.version) {
      // What events show changed, not which events there are: only the hydrated views go.
      entry = { ...entry, version: snapshot.version, ...this.noPages() };
      this.install(key, entry);
    }
    if (!entry) {
      entry = this.fresh(snapshot.id, epoch, snapshot.deletions, snapshot.version);
      this.install(key, entry);
    } else if (entry.upTo < snapshot.id) {
      entry = await this.forwardOnce(key, q, entry, snapshot.id);
    } else {
      this.metrics.listingRefresh('current');
    }
    return { entry, q: { ...q, upTo: entry.upTo } };
  }

  /**
   * What a listing's answer is a function of, as of now: the listing version (what written events
   * show), the deletions, and the newest event the change feed saw for this listing's project(s)
   * or author that its filter could match. Equal marks, equal answers: version tags
   * (http/conditional.ts) are built from it, so a write to project A leaves B's tags alone.
   *
   * Exact because the feed covers every id from its floor to the snapshot's head: the listing's
   * events up to the head are its events up to the floor (fixed while the version and deletions
   * stand, and the floor is part of the mark) and those up to `last`. A snapshot older than the
   * floor (the feed started over meanwhile) falls back to its head, which is always exact. A
   * listing empty by rule (null: a private profile) is a function of the version alone.
   *
   * Given a REST page's bounds, a page that appends cannot change (`appendsLeaveAsItIs`) gets a
   * mark without the feed's part: it stands while new events arrive.
   */
  async mark(
    q: EventQuery | null,
    page?: { offset: number; limit: number },
  ): Promise<{ mark: string; snapshot: ListingSnapshot }> {
    const snapshot = await this.clock.current();
    if (!q) return { mark: `${snapshot.version}:empty`, snapshot };
    // A signed-in viewer's memberships may expire with the day, which no write announces.
    const day = q.viewer ? `:d${dayOf(q)}` : '';
    const epoch = page ? this.appendsLeaveAsItIs(q, page, snapshot) : null;
    if (epoch !== null) {
      return { mark: `${snapshot.version}:${snapshot.deletions}:e${epoch}:asc${day}`, snapshot };
    }
    const members = await this.memberIds(q);
    // Read together, with no wait in between: the feed may start over at any wait.
    const floor = this.clock.floor;
    const last =
      snapshot.id < floor ? `h${snapshot.id}` : Math.min(this.lastChange(q, members), snapshot.id);
    return { mark: `${snapshot.version}:${snapshot.deletions}:${floor}:${last}${day}`, snapshot };
  }

  /**
   * The epoch under which events appended from now on leave this REST page's answer exactly as it
   * is (null when they may not), so its mark need not follow them: an oldest-first page (appended events sort after every row it
   * has) of a listing counted past MAX_COUNT under the snapshot's epoch and deletions, ending
   * within MAX_COUNT. Its total is not reported (GitLab omits it past the cap) and it has a next
   * page; appends only add rows, so both stay so, and so do its rows. Whatever else could change
   * the answer moves a part of this mark: what events show (the version), deletions, and
   * visibility or membership (the epoch, which the version moves with too). A sync client walking
   * a big project from its first event keeps its 304s, and a write recomputes none of these pages.
   */
  private appendsLeaveAsItIs(
    q: EventQuery,
    page: { offset: number; limit: number },
    snapshot: ListingSnapshot,
  ): number | null {
    if (q.filter.sort !== 'asc' || page.offset + page.limit > MAX_COUNT) return null;
    const entry = this.entries.get(listingKey(q));
    const epoch = this.epochOf(q, snapshot);
    const counted =
      entry !== undefined &&
      entry.epoch === epoch &&
      entry.deletions === snapshot.deletions &&
      entry.count !== undefined &&
      entry.count > MAX_COUNT;
    return counted ? epoch : null;
  }

  /** The epoch a listing's entry is built under: its project's, or all projects'. */
  private epochOf(q: EventQuery, snapshot: ListingSnapshot): number {
    return q.source.kind === 'project'
      ? (snapshot.epochs.get(q.source.projectId) ?? 0)
      : snapshot.epoch;
  }

  /**
   * What any answer is a function of besides the events its listings hold: `version`, the listing
   * version and the deletions (what rows of users, projects, memberships and content show); and
   * `head`, the same with the newest event id, for answers that may read any event (every append
   * moves it).
   */
  async versionMarks(day: string): Promise<VersionMarks> {
    const snapshot = await this.clock.current();
    // Memberships expire with the day (domain/membership-expiry), which no write announces.
    const version = `${snapshot.version}:${snapshot.deletions}:d${day}`;
    return { version, head: `${version}:h${snapshot.id}` };
  }

  private fresh(upTo: number, epoch: number, deletions: number, version: number): Entry {
    return { upTo, epoch, deletions, version, checkpoints: [], ...this.noPages() };
  }

  private noPages(): Pick<Entry, 'pages' | 'windows'> {
    return { pages: this.pages ? new Map() : null, windows: this.pages ? new Map() : null };
  }

  private install(key: string, entry: Entry): void {
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(key)) this.entries.clear();
    this.entries.set(key, entry);
  }

  /**
   * The entry brought forward to `head`, or further, by one walk however many readers ask at
   * once: a write moves the head of every listing it touches, and the readers of a busy listing
   * (sixteen connections polling one project) would otherwise each walk the same new events and
   * hydrate the same rows. A reader joins a forward from the same entry to its head or beyond;
   * an answer bounded by a newer head than its mark is newer than its tag, which conditional
   * requests allow (http/conditional.ts: never a stale 304).
   */
  private async forwardOnce(key: string, q: EventQuery, from: Entry, head: number): Promise<Entry> {
    const running = this.forwarding.get(key);
    if (running && running.from === from && running.head >= head) {
      this.metrics.listingRefresh('joined');
      return running.done;
    }
    const done = this.forward(q, from, head).then((forwarded) => {
      // Another forward (from a newer entry) may have installed a newer one meanwhile.
      const now = this.entries.get(key);
      if (!now || now === from || now.upTo < forwarded.upTo) this.install(key, forwarded);
      return forwarded;
    });
    const flight = { from, head, done };
    this.forwarding.set(key, flight);
    try {
      return await done;
    } finally {
      if (this.forwarding.get(key) === flight) this.forwarding.delete(key);
    }
  }

  /**
   * `work` on `entry` (its count, a page, a window: named by `what`), run once however many
   * readers ask while it runs; they all get its result. The caller stores the result in the entry
   * as before; this only keeps concurrent readers from computing it side by side.
   */
  once<T>(entry: Entry, what: string, work: () => Promise<T>): Promise<T> {
    let running = this.working.get(entry);
    if (!running) {
      running = new Map();
      this.working.set(entry, running);
    }
    const inFlight = running.get(what);
    if (inFlight) return inFlight as Promise<T>;
    const started = work().finally(() => running.delete(what));
    running.set(what, started);
    return started;
  }

  /** The entry's capped count, counted once (see `once`). */
  async count(q: EventQuery, entry: Entry): Promise<number> {
    if (entry.count !== undefined) return entry.count;
    const count = await this.once(entry, 'count', () => this.store.events.count(q, MAX_COUNT));
    entry.count ??= count;
    return entry.count;
  }

  /**
   * The entry brought forward from its mark to `head`, read in the context of the request that
   * started it (the member projects, the new rows' authors and projects). Readers
   * that join it (`forwardOnce`) share those rows: sound, as for shared walks, because a reader
   * joins only a forward from the entry of its own listing version, and every change those row
   * caches see moves that version in the same commit (docs/listing-caches.md, "One reading per
   * request").
   */
  private async forward(q: EventQuery, old: Entry, head: number): Promise<Entry> {
    const members = await this.memberIds(q);
    const fed = old.upTo >= this.clock.floor;
    if (fed && this.lastChange(q, members) <= old.upTo) {
      this.metrics.listingRefresh('skipped');
      return { ...old, upTo: head };
    }
    // scope=all: walk only the member projects the feed saw new events of this filter in (most
    // writes touch one), not a merge of every member project's walk.
    const filter = feedFilter(q);
    const changed =
      members && fed
        ? members.filter((id) => this.clock.lastMatching({ projectId: id }, filter) > old.upTo)
        : undefined;
    const rows = await this.store.events.since(
      { ...q, upTo: head },
      old.upTo,
      MAX_FORWARD + 1,
      changed,
    );
    if (rows.length > MAX_FORWARD) {
      this.metrics.listingRefresh('rebuilt');
      return this.fresh(head, old.epoch, old.deletions, old.version);
    }
    this.metrics.listingRefresh('forwarded');
    if (rows.length === 0) return { ...old, upTo: head };
    const n = rows.length;
    const desc = q.filter.sort !== 'asc';
    return {
      upTo: head,
      epoch: old.epoch,
      deletions: old.deletions,
      version: old.version,
      ...(old.count === undefined ? {} : { count: Math.min(old.count + n, MAX_COUNT + 1) }),
      // Newest first: the new rows come before every checkpoint. Oldest first: after them all.
      checkpoints: desc
        ? old.checkpoints.map((c) => ({ offset: c.offset + n, id: c.id }))
        : old.checkpoints,
      pages: old.pages && (await this.forwardPages(old.pages, rows, desc)),
      windows: old.windows && (await this.forwardWindows(old.windows, rows, desc)),
    };
  }

  /** Ids of the projects a cross-project listing spans (scope=all), or null. */
  private async memberIds(q: EventQuery): Promise<number[] | null> {
    if (q.source.kind !== 'memberships') return null;
    const projects = await this.store.events.memberProjects(q.source.userId, dayOf(q));
    return projects.map((p) => p.projectId);
  }

  /**
   * The newest event id the feed saw for this listing's project(s) or author that could match
   * its action and target type filters (a listing of pushes walks nothing after a comment).
   */
  private lastChange(q: EventQuery, members: number[] | null): number {
    const { source } = q;
    const filter = feedFilter(q);
    if (source.kind === 'project') {
      return this.clock.lastMatching({ projectId: source.projectId }, filter);
    }
    if (source.kind === 'author')
      return this.clock.lastMatching({ authorId: source.userId }, filter);
    let last = 0;
    for (const id of members ?? []) {
      last = Math.max(last, this.clock.lastMatching({ projectId: id }, filter));
    }
    return last;
  }

  /**
   * The cached pages as they stand after new rows (ids above every cached one, oldest first).
   *
   * Oldest first: the new rows come after everything, so every page with a next page stands.
   * Newest first: the listing is now the new rows, newest first, followed by the old listing, so
   * the page at offset `o` holds the old listing's rows from `o - n` on. A page stands, rebuilt
   * without a query, when those rows are known: the new rows, and old rows from any cached page
   * (the first page and the next together give the second page after a write). A page whose rows
   * are not all known is kept as it was with a `shift` (see `settle`), unless fewer than one of
   * its rows would remain.
   */
  private async forwardPages(
    pages: Map<string, CachedPage>,
    rows: EventRow[],
    desc: boolean,
  ): Promise<Map<string, CachedPage>> {
    const out = new Map<string, CachedPage>();
    if (!desc) {
      for (const [key, page] of pages) if (page.hasNext) out.set(key, page);
      return out;
    }
    const n = rows.length;
    const placed = [...pages].map(([key, page]) => {
      const [offset, limit] = key.split(':').map(Number) as [number, number];
      // Where the page's rows stand in the old listing (a shifted page's rows lie further down).
      return { key, page, offset, limit, at: offset + (page.shift ?? 0) };
    });
    // What the cached pages tell of the old listing: its rows by position, the highest position
    // known to hold a row, and its length when a page reached its end.
    const known = new Map<number, EventView>();
    let lastRow = -1;
    let end: number | undefined;
    for (const { page, at } of placed) {
      page.events.forEach((view, i) => known.set(at + i, view));
      if (page.events.length === 0) continue;
      lastRow = Math.max(lastRow, at + page.events.length - (page.hasNext ? 0 : 1));
      if (!page.hasNext) end = at + page.events.length;
    }
    // The new rows the pages show, hydrated once for all of them.
    let shown = 0;
    for (const { offset, limit } of placed) {
      if (offset < n) shown = Math.max(shown, Math.min(n, offset + limit));
    }
    const newest = await hydrateEvents(this.store, rows.slice(n - shown).reverse());
    const oldAt = (position: number): EventView | 'end' | undefined =>
      known.get(position) ?? (end !== undefined && position >= end ? 'end' : undefined);
    for (const { key, page, offset, limit } of placed) {
      const events: EventView[] = [];
      let complete = true;
      for (let position = offset; position < offset + limit; position++) {
        if (position < n) {
          events.push(newest[position]!);
          continue;
        }
        const view = oldAt(position - n);
        if (view === 'end') break;
        if (view === undefined) {
          complete = false;
          break;
        }
        events.push(view);
      }
      // Is there a row right after the page?
      const next = offset + limit;
      const hasNext = !complete
        ? undefined
        : next < n || next - n <= lastRow
          ? true
          : oldAt(next - n) === 'end'
            ? false
            : undefined;
      if (hasNext !== undefined) {
        out.set(key, { events, hasNext });
        continue;
      }
      const shift = (page.shift ?? 0) + n;
      if (page.events.length > 0 && shift < limit) out.set(key, { ...page, shift });
    }
    return out;
  }

  /**
   * A shifted page as it stands at the entry's mark: the `shift` rows right before its first row
   * (one walk up the listing's index from that row), then its own rows, cut to the page's size.
   * Stored back into the entry: the same mark, the same answer for every later request.
   */
  async settle(q: EventQuery, entry: Entry, key: string, page: CachedPage): Promise<CachedPage> {
    const limit = Number(key.split(':')[1]);
    const first = page.events[0]!.id;
    const before = await this.store.events.since(q, first, page.shift ?? 0, undefined);
    const views = await hydrateEvents(this.store, before.reverse());
    const settled: CachedPage = {
      events: [...views, ...page.events].slice(0, limit),
      hasNext: views.length + page.events.length > limit || page.hasNext,
    };
    if (entry.pages?.get(key) === page) entry.pages.set(key, settled);
    return settled;
  }

  /**
   * Windows that new rows leave as they were: those whose id bounds exclude every new id, and full
   * windows walking up the ids (the new ids lie past their last row). The newest-first window from
   * the top (a feed's first page) gets the new rows prepended instead.
   */
  private async forwardWindows(
    windows: Map<string, CachedWindow>,
    rows: EventRow[],
    desc: boolean,
  ): Promise<Map<string, CachedWindow>> {
    const out = new Map<string, CachedWindow>();
    for (const [key, w] of windows) {
      if (desc && !w.reverse && w.afterId === undefined && w.beforeId === undefined) {
        const newest = await hydrateEvents(this.store, rows.slice(-w.limit).reverse());
        out.set(key, { ...w, views: [...newest, ...w.views].slice(0, w.limit) });
        continue;
      }
      // In id terms: afterId bounds from below when ascending, from above when descending.
      let upper = Infinity;
      let lower = -Infinity;
      if (w.afterId !== undefined) {
        if (desc) upper = w.afterId;
        else lower = w.afterId;
      }
      if (w.beforeId !== undefined) {
        if (desc) lower = w.beforeId;
        else upper = w.beforeId;
      }
      const touched = rows.some((r) => r.id > lower && r.id < upper);
      const walksUp = desc === w.reverse;
      if (!touched || (walksUp && w.views.length === w.limit)) out.set(key, w);
    }
    return out;
  }
}

/** The part of a listing's filter the change feed keeps newest ids by (action, target type). */
function feedFilter(q: EventQuery): { action?: number; targetType?: string } {
  return {
    ...(q.filter.action ? { action: actionCode(q.filter.action) } : {}),
    ...(q.filter.targetType ? { targetType: q.filter.targetType } : {}),
  };
}

/** Remembers a page or window, dropping the oldest past the per-listing bound. */
export function remember<V>(map: Map<string, V> | null, key: string, value: V): void {
  if (!map) return;
  if (map.size >= MAX_PAGES_PER_ENTRY && !map.has(key)) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/**
 * Where to start walking for `offset`: the nearest checkpoint at or before it, placing a new one
 * on the way. `fromId` undefined means the offset is past the last row.
 */
export async function seek(
  store: Store,
  q: EventQuery,
  checkpoints: Checkpoint[],
  offset: number,
): Promise<{ fromId: number | null | undefined; skip: number }> {
  const target = Math.floor(offset / CHECKPOINT) * CHECKPOINT;
  if (target === 0) return { fromId: null, skip: offset };
  let base: Checkpoint | undefined;
  for (const c of checkpoints) {
    if (c.offset > offset) break;
    base = c;
  }
  // A checkpoint close enough below the offset: walk from it directly.
  if (base && offset - base.offset < CHECKPOINT)
    return { fromId: base.id, skip: offset - base.offset };
  const fromOffset = base?.offset ?? 0;
  const id = await store.events.idAt(q, base?.id ?? null, target - fromOffset);
  if (id === null) return { fromId: undefined, skip: 0 };
  // Newest-first listings shift their checkpoints as events arrive; a long-lived busy listing
  // would collect them without bound, so past a thousand it starts again.
  if (checkpoints.length >= MAX_CHECKPOINTS) checkpoints.length = 0;
  const at = checkpoints.findIndex((c) => c.offset > target);
  checkpoints.splice(at < 0 ? checkpoints.length : at, 0, { offset: target, id });
  return { fromId: id, skip: offset - target };
}

/** Everything that changes a listing's rows, as a stable key. */
export function listingKey(q: EventQuery): string {
  const f = q.filter;
  return [
    JSON.stringify(q.source),
    // The day judges the viewer's memberships (a project source's level is judged already).
    q.viewer ? `${q.viewer.userId}:${q.viewer.admin ? 1 : 0}:${dayOf(q)}` : '-',
    f.action ?? '',
    f.targetType ?? '',
    f.kinds ? JSON.stringify(f.kinds) : '',
    f.createdBefore ?? '',
    f.createdFrom ?? '',
    f.sort,
  ].join('|');
}
