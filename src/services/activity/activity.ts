/**
 * The activity service: finds the source (user, project, viewer), applies filter and visibility
 * through the store, pages, and hydrates events into face-neutral views. REST and GraphQL both
 * call it; neither holds a rule of its own. REST asks for offset pages here; GraphQL (and anything
 * that resolves a graph per request) works through a per-request `ActivityReader`.
 */
import { CONTRIBUTIONS } from '../../domain/activity-tabs.js';
import { NotFoundError } from '../../domain/errors.js';
import type { EventFilter } from '../../domain/filters.js';
import { type OffsetPage, reportedTotal } from '../../domain/pagination.js';
import { canReadProject, canReadUserProfile, type Viewer } from '../../domain/visibility.js';
import type { EventQuery } from '../../store/events.js';
import type { ProjectRow, UserRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { ActivityReader, type EventReads } from './activity-reader.js';
import { membershipDay } from '../../domain/membership-expiry.js';
import type { Clock } from '../clock.js';
import { EventListing, type ListingContext } from './event-listing.js';
import { type EventView, hydrateEvents } from './event-views.js';
import { ListingCache, type VersionMarks, remember, seek } from './listing-cache.js';
import { ListingClock, type ListingSnapshot } from './listing-clock.js';
import { type Metrics, noMetrics } from '../metrics.js';
import { type ProjectView, type UserView, projectView, userView } from '../views.js';
import { isRowId } from '../../domain/ids.js';

export type { Commit, EventView, PushView } from './event-views.js';
export type { EventListing, KeysetWindow } from './event-listing.js';
export type { VersionMarks } from './listing-cache.js';
export type { ActivityReader, EventReads, EventTarget } from './activity-reader.js';

/** What to list: the viewer's own events, a user's, or a project's. */
export type ActivitySource =
  | { kind: 'viewer'; scope?: string | undefined }
  | { kind: 'user'; idOrUsername: string }
  | { kind: 'project'; idOrPath: string };

/** A source resolved for a viewer (`ActivityService.resolve`): faces pass it back as it is. */
export class ResolvedListing {
  /**
   * The moment its mark was read: its page is read at that moment too, so the body is exactly
   * what the mark (and the tag built from it) stands for, with one read of the head per request.
   */
  snapshot: ListingSnapshot | undefined;

  /** @param query The store query, or null when the answer is empty by rule. */
  constructor(readonly query: EventQuery | null) {}
}

export interface OffsetListing {
  events: EventView[];
  /** Exact count, or null above the reporting cap. */
  total: number | null;
  hasNext: boolean;
}

/** A project found readable by a viewer, with the viewer's access level in it. */
export interface ResolvedProject {
  project: ProjectView;
  accessLevel: number | null;
}

const NUMERIC_ID = /^\d+$/;
const SIGNED_NUMERIC_ID = /^-?\d+$/;

export class ActivityService {
  private readonly listings: ListingContext;
  private readonly metrics: Metrics;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: { pageCache?: boolean; metrics?: Metrics } = {},
  ) {
    this.metrics = options.metrics ?? noMetrics;
    const cache = new ListingCache(
      store,
      new ListingClock(store),
      this.metrics,
      options.pageCache ?? true,
    );
    this.listings = { store, cache, metrics: this.metrics };
  }

  /**
   * A reader for one request: batched lookups and resolved sources, for this viewer only;
   * recording into `reads` what it reads from the event log, when given.
   */
  reader(
    viewer: Viewer | null,
    self: UserView | null = null,
    reads: EventReads | null = null,
  ): ActivityReader {
    return new ActivityReader(this, this.store, viewer, self, reads);
  }

  /** `:id` of `/users/:id`: digits are an id, anything else a username (case-insensitive). */
  async findUser(idOrUsername: string): Promise<UserView> {
    return userView(await this.findUserRow(idOrUsername));
  }

  /** A user by username only (profile pages: `/123` is the user named 123, not id 123). */
  async findUserByUsername(username: string): Promise<UserView> {
    const user = await this.store.users.byUsername(username);
    if (!user) throw new NotFoundError('User');
    return userView(user);
  }

  private async findUserRow(idOrUsername: string): Promise<UserRow> {
    const user = NUMERIC_ID.test(idOrUsername)
      ? isRowId(Number(idOrUsername))
        ? await this.store.users.byId(Number(idOrUsername))
        : undefined
      : await this.store.users.byUsername(idOrUsername);
    if (!user) throw new NotFoundError('User');
    return user;
  }

  /**
   * `:id` of `/projects/:id`: a number, or a full path containing '/'. Unreadable = not found.
   */
  async findProject(idOrPath: string, viewer: Viewer | null): Promise<ResolvedProject> {
    let project: ProjectRow | undefined;
    if (SIGNED_NUMERIC_ID.test(idOrPath)) {
      const id = Number(idOrPath);
      project = isRowId(id) ? await this.store.projects.byId(id) : undefined;
    } else if (idOrPath.includes('/')) {
      project = await this.store.projects.byFullPath(idOrPath);
    }
    if (!project) throw new NotFoundError('Project');
    const accessLevel = viewer
      ? await this.store.projects.accessLevel(project.id, viewer.userId, this.day())
      : null;
    if (!canReadProject(project.visibility as never, viewer, accessLevel))
      throw new NotFoundError('Project');
    return { project: projectView(project), accessLevel };
  }

  /** Ids of the first public projects (anyone may read their listings: the server's warm-up). */
  publicProjectIds(limit: number): Promise<number[]> {
    return this.store.projects.publicIds(limit);
  }

  /** The viewer's own events, or with scope `all` every event in the viewer's projects. */
  viewerListing(viewer: Viewer, scope: string | undefined, filter: EventFilter): EventListing {
    return this.listing(this.dated(viewerQuery(viewer, scope, filter)));
  }

  /** A user's events; empty by rule for a profile the viewer may not read. */
  userListing(user: UserView, filter: EventFilter, viewer: Viewer | null): EventListing {
    const q = this.dated(userQuery(user, filter, viewer));
    return q ? this.listing(q) : EventListing.EMPTY;
  }

  /**
   * A user's contributions the viewer may see (as the user's listing shows them), counted per UTC
   * day (days since the epoch) from `from` on; none for a profile the viewer may not read.
   */
  async contributionDays(
    user: UserView,
    viewer: Viewer | null,
    from: number,
  ): Promise<Array<{ day: number; count: number }>> {
    const q = this.dated(
      userQuery(user, { sort: 'desc', kinds: CONTRIBUTIONS, createdFrom: from }, viewer),
    );
    return q ? this.store.events.countByDay(q) : [];
  }

  /** A project's events, for a project `findProject` resolved for this viewer. */
  projectListing(resolved: ResolvedProject, filter: EventFilter, viewer: Viewer | null) {
    return this.listing(this.dated(projectQuery(resolved, filter, viewer)));
  }

  /** The UTC day memberships are judged on now (domain/membership-expiry). */
  private day(): string {
    return membershipDay(this.clock.now());
  }

  /** A query that judges memberships on today's date (an expired one grants nothing). */
  private dated<Q extends EventQuery | null>(q: Q): Q {
    return (q === null ? q : { ...q, day: this.day() }) as Q;
  }

  private listing(q: EventQuery): EventListing {
    return new EventListing(this.listings, q);
  }

  /**
   * A source found and checked for this viewer (a hidden project is not found), ready to be
   * marked and paged; it holds no rows yet.
   */
  async resolve(
    source: ActivitySource,
    filter: EventFilter,
    viewer: Viewer | null,
  ): Promise<ResolvedListing> {
    return new ResolvedListing(this.dated(await this.query(source, filter, viewer)));
  }

  /**
   * What the listing's answer is a function of, as of now (listing-cache.ts `mark`): equal marks
   * mean equal answers, so faces build version tags (ETags, kept responses) from it.
   */
  async mark(listing: ResolvedListing, page?: OffsetPage): Promise<string> {
    const { mark, snapshot } = await this.listings.cache.mark(
      this.dated(listing.query),
      page && pageBounds(page),
    );
    listing.snapshot = snapshot;
    return mark;
  }

  /**
   * The listing's mark as of now, leaving its snapshot as it was (a kept answer's check).
   */
  async remark(listing: ResolvedListing, page?: OffsetPage): Promise<string> {
    const bounds = page && pageBounds(page);
    // Dated afresh: a kept answer's memberships are judged on the day it is asked again.
    return (await this.listings.cache.mark(this.dated(listing.query), bounds)).mark;
  }

  /**
   * What every answer depends on besides its listings' events, and (`head`) the mark of answers
   * that may read any listing, which moves on every append (ListingCache `versionMarks`).
   */
  versionMarks(): Promise<VersionMarks> {
    return this.listings.cache.versionMarks(this.day());
  }

  /** The store query behind a source, or null when the answer is empty by rule. */
  private async query(
    source: ActivitySource,
    filter: EventFilter,
    viewer: Viewer | null,
  ): Promise<EventQuery | null> {
    switch (source.kind) {
      case 'user':
        return userQuery(await this.findUser(source.idOrUsername), filter, viewer);
      case 'project': {
        const project = await this.findProject(source.idOrPath, viewer);
        return projectQuery(project, filter, viewer);
      }
      case 'viewer':
        if (!viewer) throw new Error('viewer source needs an authenticated viewer');
        return viewerQuery(viewer, source.scope, filter);
    }
  }

  /** Offset pagination as REST serves it. */
  async listPage(listing: ResolvedListing, page: OffsetPage): Promise<OffsetListing> {
    const unbounded = listing.query;
    if (!unbounded) return { events: [], total: 0, hasNext: false };
    const { cache } = this.listings;
    const { entry, q } = await cache.entry(unbounded, listing.snapshot);
    const { offset, limit } = pageBounds(page);
    const pageKey = `${offset}:${limit}`;
    let cached = entry.pages?.get(pageKey);
    if (entry.pages) this.metrics.cacheLookup('rest_page', cached !== undefined);
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
    // The count and the page are independent reads: a listing met for the first time sends both
    // at once (on PostgreSQL over two connections), so it waits for the longer, not their sum.
    const counting = cache.count(q, entry);
    if (!this.store.readsInParallel) {
      // One connection runs one statement after the other, so counting first costs nothing, and
      // a page past the end is then answered without walking the listing's index to its end: a
      // profile whose every event the viewer may not see (on 1,000,000 events, 5 ms of walking
      // 12,500 hidden rows to find none), or a page number past the last of a listing whose
      // count is reported (up to 10,000 events; above, the count is capped and says no end).
      const empty = pastTheEnd(await counting, offset);
      if (empty) return empty;
    }
    // Readers of the same page at the same moment (a busy listing after a write) share one walk.
    const paging = cache.once(entry, `page ${pageKey}`, async () => {
      const { fromId, skip } = await seek(this.store, q, entry.checkpoints, offset);
      const rows =
        fromId === undefined
          ? []
          : await this.store.events.list(
              q,
              { kind: 'offset', offset: skip, limit: page.perPage + 1 },
              fromId,
            );
      const computed = {
        events: await hydrateEvents(this.store, rows.slice(0, page.perPage)),
        hasNext: rows.length > page.perPage,
      };
      remember(entry.pages, pageKey, computed);
      return computed;
    });
    const [count, found] = await Promise.all([counting, paging]);
    return { ...found, total: reportedTotal(count) };
  }

  /**
   * One event by id, under exactly the rules of a listing (project visibility, confidential
   * issues, code access): the event is looked up through its project's listing, so there is no
   * second copy of those rules.
   */
  async findEvent(id: number, viewer: Viewer | null): Promise<EventView | null> {
    const [row] = await this.store.events.byIds([id]);
    if (!row) return null;
    let resolved: ResolvedProject;
    try {
      resolved = await this.findProject(String(row.project_id), viewer);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
    const listing = this.projectListing(resolved, { sort: 'desc' }, viewer);
    // Newest-first window starting just above the id: the first row is the event iff visible.
    const [found] = await listing.window({ afterId: id + 1, limit: 1 });
    return found && found.id === id ? found : null;
  }
}

/** The empty page at `offset` of a listing whose reported count ends before it, or null. */
function pastTheEnd(count: number, offset: number): OffsetListing | null {
  const total = reportedTotal(count);
  return total !== null && offset >= total ? { events: [], total, hasNext: false } : null;
}

function viewerQuery(viewer: Viewer, scope: string | undefined, filter: EventFilter): EventQuery {
  return {
    source:
      scope === 'all'
        ? { kind: 'memberships', userId: viewer.userId }
        : { kind: 'author', userId: viewer.userId },
    filter,
    viewer,
  };
}

/** Null when the profile is private or blocked for this viewer (GitLab answers `[]`). */
function userQuery(user: UserView, filter: EventFilter, viewer: Viewer | null): EventQuery | null {
  if (!canReadUserProfile(user, viewer)) return null;
  return { source: { kind: 'author', userId: user.id }, filter, viewer };
}

function projectQuery(
  resolved: ResolvedProject,
  filter: EventFilter,
  viewer: Viewer | null,
): EventQuery {
  const { project, accessLevel } = resolved;
  return {
    source: { kind: 'project', projectId: project.id, visibility: project.visibility, accessLevel },
    filter,
    viewer,
  };
}

/** Where a REST page starts in its listing, and how many rows it holds. */
function pageBounds(page: OffsetPage): { offset: number; limit: number } {
  return { offset: (page.page - 1) * page.perPage, limit: page.perPage };
}
