/**
 * The activity service: every face asks for a listing in one call, `read` (source, filter, page,
 * viewer and the request's validators in; "not modified" with its tag, or the tagged page, out).
 */
import { NotFoundError } from '../../domain/errors.js';
import { ifNoneMatchMatches, strongTag } from '../../domain/etags.js';
import type { EventFilter } from '../../domain/filters.js';
import type { OffsetPage } from '../../domain/pagination.js';
import { canReadUserProfile, type Viewer } from '../../domain/visibility.js';
import { type EventQuery, type EventSource, isSocial } from '../../store/events.js';
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
import { CONTRIBUTIONS } from '../../domain/activity-tabs.js';
import {
  DAY_MS,
  DEFAULT_TIME_ZONE,
  calendarDays,
  canonicalTimeZone,
  offsetSegments,
  startOfLocalDay,
} from '../../domain/calendar.js';

export type { Commit, EventView, PushView } from './event-views.js';
export type { EventListing, KeysetWindow, OffsetListing } from './event-listing.js';
export type { ActivityReader, EventTarget, ReaderSource } from './activity-reader.js';

/**
 * What to list: the viewer's own events (scope `all`: their projects'; `starred`, `followed`: the
 * starred projects', the followed users'; anything else is ignored, as GitLab does), a user's, or
 * a project's (by key, or as found).
 */
export type ActivitySource =
  | { kind: 'viewer'; scope?: string | undefined }
  | { kind: 'user'; idOrUsername: string }
  | { kind: 'user'; user: UserView }
  | { kind: 'project'; idOrPath: string }
  | { kind: 'project'; project: ResolvedProject };

/** Contributions per local day of `timeZone` (the calendar): counted, not paged. */
export type PerDay = { perDay: true; timeZone: string };

/** A user's contribution calendar: its days (local dates, days since 1970) and counts. */
export interface Calendar {
  timeZone: string;
  range: { first: number; last: number };
  /** Only days with contributions. */
  days: Map<number, number>;
}

/** A page of a listing: REST's offset page, a keyset window, or counts per day. */
export type ListingPage = OffsetPage | KeysetWindow | PerDay;

/** What the client holds (`If-None-Match`), the response cache's tag, and what the body varies by. */
export interface Validators {
  ifNoneMatch: string | string[] | undefined;
  kept?: string | undefined;
  /** The face's kind, revision, URL or document, viewer; the mark joins them in the tag. */
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
      /** Both null when the request gave no validators. */
      tag: string | null;
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
   * found); with validators reads the mark first and answers "not modified" when the client or
   * the response cache holds its tag; else the page, read at the mark's snapshot.
   */
  async read<P extends ListingPage>(request: ListingRequest<P>): Promise<ListingAnswer<Result<P>>> {
    const { filter, page, viewer, validators } = request;
    const q = await this.query(request.source, filter, viewer);
    const offset = 'perPage' in page ? (page as OffsetPage) : undefined;
    const listing = this.listing(q);
    let mark: Mark | null = null;
    let tag: string | null = null;
    let snapshot;
    if (validators) {
      // A starred or followed listing's set is read again with its mark (listing-cache `socialSet`).
      const again =
        q && isSocial(q.source) ? () => this.query(request.source, filter, viewer) : undefined;
      ({ mark, snapshot } = await this.markOf(q, offset, again));
      tag = versionTag(validators.vary, [mark.value]);
      if (ifNoneMatchMatches(validators.ifNoneMatch, tag) || tag === validators.kept) {
        return { notModified: true, tag };
      }
    }
    let result;
    if (offset) result = await listing.page(offset, snapshot);
    else if ('perDay' in page) result = q ? await this.perDay(q, (page as PerDay).timeZone) : [];
    else {
      const events = await listing.window(page as KeysetWindow);
      result = { events, total: () => listing.total(), any: listing.any.bind(listing) };
    }
    return { notModified: false, tag, mark, page: result as Result<P> };
  }

  /** Counts per local day of `zone`, over the filter's time range (a year: the calendar). */
  private perDay(q: EventQuery, zone: string) {
    const from = q.filter.createdFrom ?? 0;
    const to = q.filter.createdBefore ?? this.clock.now() + DAY_MS;
    return this.store.events.countByDay(this.dated(q), offsetSegments(zone, from, to));
  }

  /**
   * A user's contribution calendar as `viewer` sees it, as GitLab computes it: the contributor's
   * time zone, the same date a year ago to today, GitLab's counted actions. Without the user's
   * "include private contributions" only events in projects the viewer may read count; with it,
   * every project's (GitLab ignores visibility then). A profile the viewer may not read shows
   * nothing either way.
   */
  async calendar(user: UserView, viewer: Viewer | null): Promise<Calendar> {
    const timeZone = canonicalTimeZone(user.timeZone) ?? DEFAULT_TIME_ZONE;
    const range = calendarDays(this.clock.now(), timeZone);
    const days = new Map<number, number>();
    if (!canReadUserProfile(user, viewer)) return { timeZone, range, days };
    const answer = await this.read({
      source: { kind: 'user', user },
      filter: {
        sort: 'desc',
        kinds: CONTRIBUTIONS,
        createdFrom: startOfLocalDay(timeZone, range.first),
        createdBefore: startOfLocalDay(timeZone, range.last + 1),
      },
      page: { perDay: true, timeZone },
      viewer: user.includePrivateContributions ? { userId: user.id, admin: true } : viewer,
    });
    if (!answer.notModified) {
      for (const { day, count } of answer.page) {
        if (day >= range.first && day <= range.last && count > 0) days.set(day, count);
      }
    }
    return { timeZone, range, days };
  }

  /**
   * The listing's mark, read again dated afresh (a kept answer's memberships are judged today),
   * and with `again`, of the query resolved again (a starred or followed listing's set).
   */
  private async markOf(
    q: EventQuery | null,
    page?: OffsetPage,
    again?: () => Promise<EventQuery | null>,
  ) {
    const read = (query: EventQuery | null) => this.listing(query).mark(page);
    const { mark, snapshot } = await read(q);
    const reread = async () => (await read(again ? await again() : q)).mark;
    return { mark: { value: mark, read: reread }, snapshot };
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
    const id = Number(idOrUsername);
    if (!NUMERIC_ID.test(idOrUsername)) return this.findUserByUsername(idOrUsername);
    return found(isRowId(id) ? await this.store.users.byId(id) : undefined);
  }

  /** A user by username only (profile pages: `/123` is the user named 123, not id 123). */
  async findUserByUsername(username: string): Promise<UserView> {
    return found(await this.store.users.byUsername(username));
  }

  /** `:id` of `/projects/:id` (services/project-access.ts). Unreadable = not found. */
  async findProject(idOrPath: string, viewer: Viewer | null): Promise<ResolvedProject> {
    const readable = await readableProject(this.store, idOrPath, viewer, this.day());
    return { project: projectView(readable.project), accessLevel: readable.accessLevel };
  }

  /** Ids of the first public projects (anyone may read their listings: the server's warm-up). */
  publicProjectIds(limit: number): Promise<number[]> {
    return this.store.projects.publicIds(limit);
  }

  /** What every answer depends on besides its listings' events (ListingCache `versionMark`). */
  versionMark(head = false): Promise<Mark> {
    const read = () => this.listings.cache.versionMark(this.day(), head);
    return read().then((value) => ({ value, read }));
  }

  /** The UTC day memberships are judged on now (domain/membership-expiry). */
  private day(): string {
    return membershipDay(this.clock.now());
  }

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
    const query = (source: EventSource) => ({ source, filter, viewer });
    if (source.kind === 'user') {
      const user = 'user' in source ? source.user : await this.findUser(source.idOrUsername);
      // A private or blocked profile: GitLab answers `[]`.
      return canReadUserProfile(user, viewer) ? query({ kind: 'author', userId: user.id }) : null;
    }
    if (source.kind === 'project') {
      const { project, accessLevel } =
        'project' in source ? source.project : await this.findProject(source.idOrPath, viewer);
      const { id: projectId, visibility } = project;
      return query({ kind: 'project', projectId, visibility, accessLevel });
    }
    if (!viewer) throw new Error('viewer source needs an authenticated viewer');
    const userId = viewer.userId;
    // Starred and followed listings carry the set they were read with (store/events/social.ts).
    if (source.scope === 'starred') {
      const starred = await this.store.events.starredProjects(viewer, this.day());
      return query({ kind: 'starred', userId, ...starred });
    }
    if (source.scope === 'followed') {
      const followed = await this.store.events.followedUsers(viewer);
      return query({ kind: 'followed', userId, ...followed });
    }
    return query({ kind: source.scope === 'all' ? 'memberships' : 'author', userId });
  }

  /** One event by id, looked up through its project's listing: no second copy of its rules. */
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

function found(user: UserRow | undefined): UserView {
  if (!user) throw new NotFoundError('User');
  return userView(user);
}
