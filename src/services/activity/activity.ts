/**
 * The activity service: finds the source (user, project, viewer), applies filter and visibility
 * through the store, pages, and hydrates events into face-neutral views. Every face asks for a
 * listing in one call, `read`: source, filter, page, viewer and the request's validators in;
 * "not modified" with its tag, or the tagged page, out. GraphQL resolvers go through a
 * per-request `ActivityReader`, which makes the same call.
 */
import { NotFoundError } from '../../domain/errors.js';
import { ifNoneMatchMatches, strongTag } from '../../domain/etags.js';
import type { EventFilter } from '../../domain/filters.js';
import type { OffsetPage } from '../../domain/pagination.js';
import { canReadUserProfile, type Viewer } from '../../domain/visibility.js';
import type { EventQuery } from '../../store/events.js';
import type { UserRow } from '../../store/schema.js';
import { readableProject } from '../project-access.js';
import type { Store } from '../../store/store.js';
import { ActivityReader } from './activity-reader.js';
import { membershipDay } from '../../domain/membership-expiry.js';
import type { Clock } from '../clock.js';
import {
  EventListing,
  type KeysetWindow,
  type ListingContext,
  type OffsetListing,
} from './event-listing.js';
import type { EventView } from './event-views.js';
import { ListingCache } from './listing-cache.js';
import { ListingClock } from './listing-clock.js';
import { type Metrics, noMetrics } from '../metrics.js';
import { type ProjectView, type UserView, projectView, userView } from '../views.js';
import { isRowId } from '../../domain/ids.js';

export type { Commit, EventView, PushView } from './event-views.js';
export type { EventListing, KeysetWindow, OffsetListing } from './event-listing.js';
export type { ActivityReader, EventTarget, ReaderSource } from './activity-reader.js';

/** What to list: the viewer's own events, a user's, or a project's (by key, or as found). */
export type ActivitySource =
  | { kind: 'viewer'; scope?: string | undefined }
  | { kind: 'user'; idOrUsername: string }
  | { kind: 'user'; user: UserView }
  | { kind: 'project'; idOrPath: string }
  | { kind: 'project'; project: ResolvedProject };

/** Contributions per UTC day (the calendar): counted, not paged. */
export interface PerDay {
  perDay: true;
}

/** A page of a listing: REST's offset page, a keyset window, or counts per day. */
export type ListingPage = OffsetPage | KeysetWindow | PerDay;

/**
 * What a face's answer depends on besides the listing's data, and what the client holds: the
 * listing's mark joins `vary` in the tag, so equal tags mean equal bodies.
 */
export interface Validators {
  /** The request's `If-None-Match`. */
  ifNoneMatch: string | string[] | undefined;
  /** A tag whose body the server already holds (the response cache's), if any. */
  kept?: string | undefined;
  /** The face's kind, revision, URL or document, viewer: what the presented body depends on. */
  vary: readonly string[];
}

/** A value an answer was computed from, and how to read it again: equal reads, equal answers. */
export interface Mark {
  value: string;
  read(): Promise<string>;
}

export interface ListingRequest<P extends ListingPage> {
  source: ActivitySource;
  filter: EventFilter;
  page: P;
  viewer: Viewer | null;
  /** Given when the answer is tagged (and may be "not modified"). */
  validators?: Validators | undefined;
}

/** A keyset window's events, with the listing's count and a probe, asked for only if needed. */
export interface WindowListing {
  events: EventView[];
  total(): Promise<number | null>;
  any(window: Omit<KeysetWindow, 'limit'>): Promise<boolean>;
}

type Result<P> = P extends OffsetPage
  ? OffsetListing
  : P extends KeysetWindow
    ? WindowListing
    : Array<{ day: number; count: number }>;

export type ListingAnswer<T> =
  | { notModified: true; tag: string }
  | {
      notModified: false;
      /** Null when the request gave no validators. */
      tag: string | null;
      /** The mark the answer was read under (with validators), for caches that keep it. */
      mark: Mark | null;
      page: T;
    };

/** The tag of an answer: what it varies by and the marks it was read under. */
export function versionTag(vary: readonly string[], marks: readonly string[]): string {
  return strongTag(['version', ...vary, ...marks]);
}

/** A project found readable by a viewer, with the viewer's access level in it. */
export interface ResolvedProject {
  project: ProjectView;
  accessLevel: number | null;
}

const NUMERIC_ID = /^\d+$/;

export class ActivityService {
  private readonly listings: ListingContext;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: { pageCache?: boolean; metrics?: Metrics } = {},
  ) {
    const metrics = options.metrics ?? noMetrics;
    const cache = new ListingCache(
      store,
      new ListingClock(store),
      metrics,
      options.pageCache ?? true,
    );
    this.listings = { store, cache, metrics };
  }

  /**
   * The one call for a listing: resolves the source for the viewer (a hidden project is not
   * found), and with validators reads the listing's mark first, answering "not modified" when
   * the client (or the server's response cache) holds the tag it makes; else the page, read at
   * the mark's snapshot, so its body is exactly what the tag stands for.
   */
  read(request: ListingRequest<OffsetPage>): Promise<ListingAnswer<OffsetListing>>;
  read(request: ListingRequest<KeysetWindow>): Promise<ListingAnswer<WindowListing>>;
  read(request: ListingRequest<PerDay>): Promise<ListingAnswer<Result<PerDay>>>;
  async read<P extends ListingPage>(request: ListingRequest<P>): Promise<ListingAnswer<Result<P>>> {
    const { filter, page, viewer, validators } = request;
    const q = await this.query(request.source, filter, viewer);
    const offset = 'perPage' in page ? (page as OffsetPage) : undefined;
    let mark: Mark | null = null;
    let tag: string | null = null;
    let snapshot;
    if (validators) {
      const read = await this.listing(q).mark(offset);
      snapshot = read.snapshot;
      // Read again dated afresh: a kept answer's memberships are judged on the day it is asked.
      mark = { value: read.mark, read: async () => (await this.listing(q).mark(offset)).mark };
      tag = versionTag(validators.vary, [read.mark]);
      if (ifNoneMatchMatches(validators.ifNoneMatch, tag) || tag === validators.kept) {
        return { notModified: true, tag };
      }
    }
    const listing = this.listing(q);
    let result;
    if (offset) result = await listing.page(offset, snapshot);
    else if ('perDay' in page) result = q ? await this.store.events.countByDay(this.dated(q)) : [];
    else {
      const events = await listing.window(page as KeysetWindow);
      result = { events, total: () => listing.total(), any: listing.any.bind(listing) };
    }
    return { notModified: false, tag, mark, page: result as Result<P> };
  }

  /**
   * A listing for work that is not a face's answer (live delivery reads its raw rows; object pages
   * read events through a project's visibility); NOT_FOUND when the source is not readable.
   */
  async listingOf(
    source: ActivitySource,
    filter: EventFilter,
    viewer: Viewer | null,
  ): Promise<EventListing> {
    return this.listing(await this.query(source, filter, viewer));
  }

  /**
   * A reader for one request: batched lookups and resolved sources, for this viewer only;
   * recording into `marks` the marks of what it reads from the event log, when given.
   */
  reader(viewer: Viewer | null, self: UserView | null = null, marks: Mark[] | null = null) {
    return new ActivityReader(this, this.store, viewer, self, marks);
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
    const { project, accessLevel } = await readableProject(
      this.store,
      idOrPath,
      viewer,
      this.day(),
    );
    return { project: projectView(project), accessLevel };
  }

  /** Ids of the first public projects (anyone may read their listings: the server's warm-up). */
  publicProjectIds(limit: number): Promise<number[]> {
    return this.store.projects.publicIds(limit);
  }

  /**
   * What every answer depends on besides its listings' events (the listing version and the
   * deletions: what rows of users, projects, memberships and content show) and, with `head`, the
   * newest event id too, for answers that read events by id (every append moves it).
   */
  versionMark(head = false): Promise<Mark> {
    const read = () => this.listings.cache.versionMark(this.day(), head);
    return read().then((value) => ({ value, read }));
  }

  /** The UTC day memberships are judged on now (domain/membership-expiry). */
  private day(): string {
    return membershipDay(this.clock.now());
  }

  /** A query that judges memberships on today's date (an expired one grants nothing). */
  private dated(q: EventQuery): EventQuery {
    return { ...q, day: this.day() };
  }

  private listing(q: EventQuery | null): EventListing {
    return new EventListing(this.listings, q && this.dated(q));
  }

  /** The store query behind a source, or null when the answer is empty by rule. */
  private async query(
    source: ActivitySource,
    filter: EventFilter,
    viewer: Viewer | null,
  ): Promise<EventQuery | null> {
    switch (source.kind) {
      case 'user': {
        const user = 'user' in source ? source.user : await this.findUser(source.idOrUsername);
        return userQuery(user, filter, viewer);
      }
      case 'project': {
        const found =
          'project' in source ? source.project : await this.findProject(source.idOrPath, viewer);
        return projectQuery(found, filter, viewer);
      }
      case 'viewer':
        if (!viewer) throw new Error('viewer source needs an authenticated viewer');
        return viewerQuery(viewer, source.scope, filter);
    }
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
    const source = { kind: 'project', project: resolved } as const;
    const listing = await this.listingOf(source, { sort: 'desc' }, viewer);
    // Newest-first window starting just above the id: the first row is the event iff visible.
    const [found] = await listing.window({ afterId: id + 1, limit: 1 });
    return found && found.id === id ? found : null;
  }
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
