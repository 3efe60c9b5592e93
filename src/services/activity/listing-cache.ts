/**
 * Per listing (a source, a filter, a viewer): its capped count, seek checkpoints, REST pages and
 * GraphQL windows, all up to one event id (the entry's mark), brought forward as events arrive
 * (docs/listing-caches.md, "Bringing an entry forward"). A forwarded entry is a new object, so a
 * request answers from the entry it started with: every number of one answer describes one moment.
 */
import { MAX_COUNT } from '../../domain/pagination.js';
import { actionCode } from '../../domain/vocabulary.js';
import { type EventQuery, dayOf, isSocial } from '../../store/events.js';
import type { EventRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { Metrics } from '../metrics.js';
import { type EventView, hydrateEvents } from './event-views.js';
import type { ListingClock, ListingSnapshot } from './listing-clock.js';

export const CHECKPOINT = 200;
const MAX_ENTRIES = 5_000;
const MAX_PAGES_PER_ENTRY = 8;
/** More new events than this: recounting is as cheap as walking them. */
const MAX_FORWARD = 500;
const MAX_CHECKPOINTS = 1_000;

/** A REST offset page as cached: its total comes from the entry's count. */
export interface CachedPage {
  events: EventView[];
  hasNext: boolean;
  /**
   * Rows that have since come before `events[0]` (new events pushed a newest-first page down):
   * the page stands once `settle` has fetched them, one short walk instead of the whole page.
   */
  shift?: number;
}

/** A GraphQL keyset window as cached, with the bounds it was asked with. */
export interface CachedWindow {
  views: EventView[];
  afterId?: number;
  beforeId?: number;
  limit: number;
  reverse?: boolean;
}

/** A seek checkpoint: the id at an offset in sort order, as of the entry's mark. */
export interface Checkpoint {
  offset: number;
  id: number;
}

export interface Entry {
  /** The mark: the highest event id this entry reflects; its queries are bounded by it. */
  readonly upTo: number;
  /** The project's epoch, or all projects' for cross-project listings. */
  readonly epoch: number;
  readonly deletions: number;
  /** The listing version its pages and windows were hydrated under. */
  readonly version: number;
  /** Capped count: min(matching events, MAX_COUNT + 1). */
  count?: number;
  /** Sorted by offset. */
  checkpoints: Checkpoint[];
  /** REST pages by `offset:limit`, GraphQL windows by their bounds; null: page cache off. */
  pages: Map<string, CachedPage> | null;
  windows: Map<string, CachedWindow> | null;
}

export class ListingCache {
  private readonly entries = new Map<string, Entry>();
  /** Work in flight on an entry (its forward, count, a page, a window), by what it computes. */
  private readonly working = new WeakMap<Entry, Map<string, Promise<unknown>>>();

  /** `pages` false keeps counts and checkpoints but never whole pages (config `pageCache`). */
  constructor(
    private readonly store: Store,
    private readonly clock: ListingClock,
    private readonly metrics: Metrics,
    private readonly pages = true,
  ) {}

  /**
   * The listing's current entry and the query bounded by its mark, as of the snapshot `at`, else
   * of the request's read context.
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
      entry = await this.forwardShared(key, q, entry, snapshot.id);
    } else {
      this.metrics.listingRefresh('current');
    }
    return { entry, q: { ...q, upTo: entry.upTo } };
  }

  /**
   * What a listing's answer is a function of, as of now: equal marks, equal answers. The feed's
   * part (its floor, and the newest event it saw that the listing could show) is exact because the
   * feed covers every id from its floor to the head. A listing empty by rule (null) depends on the
   * version alone; a REST page that appends cannot change (`appendsLeaveAsItIs`) leaves the feed out.
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
      const mark = `${snapshot.version}:${snapshot.deletions}:e${epoch}:asc${day}`;
      return { mark: `${mark}${socialSet(q)}`, snapshot };
    }
    const members = await this.spanned(q);
    // Read together, with no wait in between: the feed may start over at any wait.
    const floor = this.clock.floor;
    const last =
      snapshot.id < floor ? `h${snapshot.id}` : Math.min(this.lastChange(q, members), snapshot.id);
    const mark = `${snapshot.version}:${snapshot.deletions}:${floor}:${last}${day}`;
    return { mark: `${mark}${socialSet(q)}`, snapshot };
  }

  /**
   * The epoch under which appends leave this REST page as it is (null: they may not): oldest
   * first, ending within MAX_COUNT, of a listing counted past MAX_COUNT under this epoch and
   * deletions (docs/listing-caches.md, "Oldest-first pages that appends cannot change").
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
      entry?.epoch === epoch && entry.deletions === snapshot.deletions && entry.count! > MAX_COUNT;
    return counted ? epoch : null;
  }

  private epochOf(q: EventQuery, snapshot: ListingSnapshot): number {
    return q.source.kind === 'project'
      ? (snapshot.epochs.get(q.source.projectId) ?? 0)
      : snapshot.epoch;
  }

  /**
   * What any answer depends on besides its listings' events: the listing version, the deletions
   * and the day; with `head` the newest event id too (answers that may read any event).
   */
  async versionMark(day: string, head: boolean): Promise<string> {
    const snapshot = await this.clock.current();
    const version = `${snapshot.version}:${snapshot.deletions}:d${day}`;
    return head ? `${version}:h${snapshot.id}` : version;
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
   * The entry brought forward to `head` by one walk however many readers ask at once. A reader
   * joining a forward to an older head than its own brings that one forward again.
   */
  private async forwardShared(key: string, q: EventQuery, from: Entry, head: number) {
    let entry = from;
    while (entry.upTo < head) {
      const start = entry;
      if (this.working.get(start)?.has('forward')) this.metrics.listingRefresh('joined');
      entry = await this.once(start, 'forward', async () => {
        const forwarded = await this.forward(q, start, head);
        // A forward from a newer entry may have installed a newer one meanwhile.
        const now = this.entries.get(key);
        if (!now || now === start || now.upTo < forwarded.upTo) this.install(key, forwarded);
        return forwarded;
      });
    }
    return entry;
  }

  /**
   * `work` on `entry`, named by `what`, run once while it runs: readers asking meanwhile share
   * its result (or its failure). Nothing is remembered here; callers store results in the entry.
   */
  once<T>(entry: Entry, what: string, work: () => Promise<T>): Promise<T> {
    let running = this.working.get(entry);
    if (!running) this.working.set(entry, (running = new Map()));
    const inFlight = running.get(what);
    if (inFlight) return inFlight as Promise<T>;
    const started = work().finally(() => running.delete(what));
    running.set(what, started);
    return started;
  }

  async count(q: EventQuery, entry: Entry): Promise<number> {
    if (entry.count !== undefined) return entry.count;
    const count = await this.once(entry, 'count', () => this.store.events.count(q, MAX_COUNT));
    entry.count ??= count;
    return entry.count;
  }

  /** The entry brought from its mark to `head`, read in the context of the request that started it. */
  private async forward(q: EventQuery, old: Entry, head: number): Promise<Entry> {
    const members = await this.spanned(q);
    const fed = old.upTo >= this.clock.floor;
    if (fed && this.lastChange(q, members) <= old.upTo) {
      this.metrics.listingRefresh('skipped');
      return { ...old, upTo: head };
    }
    // scope=all: walk only the member projects the feed saw new events of this filter in (a
    // followed listing: only the followed users).
    const filter = feedFilter(q);
    const changed =
      members && fed
        ? this.clock.changedAmong(members.owner, members.ids, filter, old.upTo)
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
    const n = rows.length;
    if (n === 0) return { ...old, upTo: head };
    const desc = q.filter.sort !== 'asc';
    const kept = old.pages && (await this.forwardViews(old.pages, old.windows!, rows, desc));
    return {
      ...old,
      upTo: head,
      ...(old.count === undefined ? {} : { count: Math.min(old.count + n, MAX_COUNT + 1) }),
      // Newest first: the new rows come before every checkpoint. Oldest first: after them all.
      checkpoints: desc
        ? old.checkpoints.map((c) => ({ offset: c.offset + n, id: c.id }))
        : old.checkpoints,
      pages: kept?.pages ?? null,
      windows: kept?.windows ?? null,
    };
  }

  /**
   * The pages and windows new rows (ids above every cached one, oldest first) leave exact, or
   * exact once settled (docs/listing-caches.md, "Bringing an entry forward").
   */
  private async forwardViews(
    pages: Map<string, CachedPage>,
    windows: Map<string, CachedWindow>,
    rows: EventRow[],
    desc: boolean,
  ) {
    const n = rows.length;
    const windowTops = [...windows].filter(
      ([, w]) => desc && !w.reverse && w.afterId === undefined && w.beforeId === undefined,
    );
    // The new rows the pages and windows show, hydrated once for all of them.
    let shown = Math.max(0, ...windowTops.map(([, w]) => Math.min(n, w.limit)));
    for (const key of desc ? pages.keys() : []) {
      const [offset, limit] = bounds(key);
      if (offset < n) shown = Math.max(shown, Math.min(n, offset + limit));
    }
    const newest =
      shown > 0 ? await hydrateEvents(this.store, rows.slice(n - shown).reverse()) : [];
    const out = {
      pages: desc ? shiftPages(pages, newest, n) : new Map<string, CachedPage>(),
      windows: new Map<string, CachedWindow>(),
    };
    // Oldest first: new rows come after everything, so a page with a next page stands.
    for (const [key, page] of desc ? [] : pages) if (page.hasNext) out.pages.set(key, page);
    for (const [key, w] of windows) {
      const upper = desc ? w.afterId : w.beforeId;
      const full = w.views.length === w.limit && desc === w.reverse;
      if ((upper !== undefined && upper <= rows[0]!.id) || full) out.windows.set(key, w);
    }
    for (const [key, top] of windowTops) {
      if (n < top.limit) {
        out.windows.set(key, { ...top, views: [...newest, ...top.views].slice(0, top.limit) });
      }
    }
    return out;
  }

  /**
   * A shifted page as it stands at the entry's mark: the `shift` rows right before its first row
   * (one walk up the listing's index from that row), then its own rows, cut to the page's size;
   * stored back into the entry, whose mark it shares.
   */
  async settle(q: EventQuery, entry: Entry, key: string, page: CachedPage): Promise<CachedPage> {
    const [, limit] = bounds(key);
    const before = await this.store.events.since(q, page.events[0]!.id, page.shift ?? 0, undefined);
    const views = await hydrateEvents(this.store, before.reverse());
    const settled: CachedPage = {
      events: [...views, ...page.events].slice(0, limit),
      hasNext: views.length + page.events.length > limit || page.hasNext,
    };
    if (entry.pages?.get(key) === page) entry.pages.set(key, settled);
    return settled;
  }

  /**
   * What a cross-project listing spans in the change feed, or null: the member projects of
   * scope=all, the starred projects, or the followed users (owner `a`).
   */
  private async spanned(q: EventQuery): Promise<Spanned | null> {
    const { source } = q;
    if (source.kind === 'starred')
      return { owner: 'p', ids: source.projects.map((p) => p.projectId) };
    if (source.kind === 'followed') return { owner: 'a', ids: source.followees };
    if (source.kind !== 'memberships') return null;
    const projects = await this.store.events.memberProjects(source.userId, dayOf(q));
    return { owner: 'p', ids: projects.map((p) => p.projectId) };
  }

  /** The newest event id the feed saw that this listing could show (by owner, action, target type). */
  private lastChange(q: EventQuery, spanned: Spanned | null): number {
    const { source } = q;
    const filter = feedFilter(q);
    if (source.kind === 'project') return this.clock.lastMatching(`p${source.projectId}`, filter);
    if (source.kind === 'author') return this.clock.lastMatching(`a${source.userId}`, filter);
    const { owner, ids } = spanned ?? { owner: 'p', ids: [] };
    return this.clock.lastMatchingOf(owner, ids, filter);
  }
}

/** The change feed's owners a cross-project listing spans (`p<project>` or `a<author>`), in id order. */
interface Spanned {
  owner: 'p' | 'a';
  ids: readonly number[];
}

/**
 * A starred or followed listing's set, as part of its mark (empty for other listings): the set is
 * read with every request, so a star or a follow changes the mark at once, in every process.
 */
function socialSet(q: EventQuery): string {
  const { source } = q;
  return isSocial(source) ? `:s${source.set}` : '';
}

/** A listing's source in its key: a starred or followed set by its digest, not its members. */
function sourceKey(source: EventQuery['source']): string {
  if (isSocial(source)) return `${source.kind}:${source.userId}:${source.set}`;
  return JSON.stringify(source);
}

/** The part of a listing's filter the change feed keeps newest ids by. */
function feedFilter(q: EventQuery): { action?: number; targetType?: string } {
  return {
    ...(q.filter.action ? { action: actionCode(q.filter.action) } : {}),
    ...(q.filter.targetType ? { targetType: q.filter.targetType } : {}),
  };
}

/** A cached page's offset and size (its key is `offset:limit`). */
function bounds(key: string): [number, number] {
  return key.split(':').map(Number) as [number, number];
}

/**
 * Newest-first pages after `n` new rows (`newest`: the first of them, newest first): the page at
 * offset `o` now holds the old listing's rows from `o - n` on. A page whose rows the cached pages
 * and the new rows all hold is rebuilt without a query (pages 1 and 2 give page 2 after a write);
 * another keeps its rows with a `shift` for `settle`, unless fewer than one of them would remain.
 */
function shiftPages(
  pages: Map<string, CachedPage>,
  newest: EventView[],
  n: number,
): Map<string, CachedPage> {
  const placed = [...pages].map(([key, page]) => {
    const [offset, limit] = bounds(key);
    // Where the page's rows stand in the old listing (a shifted page's lie further down).
    return { key, page, offset, limit, at: offset + (page.shift ?? 0) };
  });
  // What the cached pages tell of the old listing: rows by position, the last position known to
  // hold a row, and its length when a page reached its end.
  const known = new Map<number, EventView>();
  let lastRow = -1;
  let end: number | undefined;
  for (const { page, at } of placed) {
    page.events.forEach((view, i) => known.set(at + i, view));
    if (page.events.length === 0) continue;
    lastRow = Math.max(lastRow, at + page.events.length - (page.hasNext ? 0 : 1));
    if (!page.hasNext) end = at + page.events.length;
  }
  const oldAt = (position: number): EventView | 'end' | undefined =>
    known.get(position) ?? (end !== undefined && position >= end ? 'end' : undefined);
  const out = new Map<string, CachedPage>();
  for (const { key, page, offset, limit } of placed) {
    const events: EventView[] = [];
    let complete = true;
    for (let position = offset; position < offset + limit; position++) {
      const view = position < n ? newest[position] : oldAt(position - n);
      if (view === 'end') break;
      if (view === undefined) {
        complete = false;
        break;
      }
      events.push(view);
    }
    const next = offset + limit;
    const hasNext = !complete
      ? undefined
      : next < n || next - n <= lastRow
        ? true
        : oldAt(next - n) === 'end'
          ? false
          : undefined;
    if (hasNext !== undefined) out.set(key, { events, hasNext });
    else {
      const shift = (page.shift ?? 0) + n;
      if (page.events.length > 0 && shift < limit) out.set(key, { ...page, shift });
    }
  }
  return out;
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
  if (base && offset - base.offset < CHECKPOINT)
    return { fromId: base.id, skip: offset - base.offset };
  const fromOffset = base?.offset ?? 0;
  const id = await store.events.idAt(q, base?.id ?? null, target - fromOffset);
  if (id === null) return { fromId: undefined, skip: 0 };
  // A busy newest-first listing shifts its checkpoints on every forward: bound them.
  if (checkpoints.length >= MAX_CHECKPOINTS) checkpoints.length = 0;
  const at = checkpoints.findIndex((c) => c.offset > target);
  checkpoints.splice(at < 0 ? checkpoints.length : at, 0, { offset: target, id });
  return { fromId: id, skip: offset - target };
}

/** Everything that changes a listing's rows, as a stable key. */
export function listingKey(q: EventQuery): string {
  const f = q.filter;
  return [
    sourceKey(q.source),
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
