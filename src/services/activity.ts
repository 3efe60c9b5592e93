/**
 * The activity service: finds the source (user, project, viewer), applies filter and visibility
 * through the store, pages, and hydrates events into face-neutral views. REST and GraphQL both
 * call it; neither holds a rule of its own.
 */
import { NotFoundError } from '../domain/errors.js';
import type { EventFilter } from '../domain/filters.js';
import { MAX_COUNT, reportedTotal } from '../domain/pagination.js';
import { canReadProject, canReadUserProfile, type Viewer } from '../domain/visibility.js';
import type { EventQuery, EventSource } from '../store/events.js';
import type { EventRow, ProjectRow, UserRow } from '../store/schema.js';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { type EventView, hydrateEvents } from './event-views.js';
import { CHECKPOINT, ListingCache, rememberPage } from './listing-cache.js';

export type { Commit, EventView, NoteView, PushView } from './event-views.js';

/** What to list: the viewer's own events, a user's, or a project's. */
export type ActivitySource =
  | { kind: 'viewer'; scope?: string | undefined }
  | { kind: 'user'; idOrUsername: string }
  | { kind: 'project'; idOrPath: string };

export interface OffsetListing {
  events: EventView[];
  /** Exact count, or null above the reporting cap. */
  total: number | null;
  hasNext: boolean;
}

export interface ResolvedProject {
  project: ProjectRow;
  accessLevel: number | null;
}

const NUMERIC_ID = /^\d+$/;
const SIGNED_NUMERIC_ID = /^-?\d+$/;

export class ActivityService {
  private readonly cache: ListingCache;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: { pageCache?: boolean } = {},
  ) {
    this.cache = new ListingCache(() => store.dataVersion(), options.pageCache ?? true);
  }

  /** `:id` of `/users/:id`: digits are an id, anything else a username (case-insensitive). */
  async findUser(idOrUsername: string): Promise<UserRow> {
    const user = NUMERIC_ID.test(idOrUsername)
      ? Number.isSafeInteger(Number(idOrUsername))
        ? await this.store.users.byId(Number(idOrUsername))
        : undefined
      : await this.store.users.byUsername(idOrUsername);
    if (!user) throw new NotFoundError('User');
    return user;
  }

  /** `:id` of `/projects/:id`: a number, or a full path containing '/'. Unreadable = not found. */
  async findProject(idOrPath: string, viewer: Viewer | null): Promise<ResolvedProject> {
    let project: ProjectRow | undefined;
    if (SIGNED_NUMERIC_ID.test(idOrPath)) {
      const id = Number(idOrPath);
      project = Number.isSafeInteger(id) ? await this.store.projects.byId(id) : undefined;
    } else if (idOrPath.includes('/')) {
      project = await this.store.projects.byFullPath(idOrPath);
    }
    if (!project) throw new NotFoundError('Project');
    const accessLevel = viewer
      ? await this.store.projects.accessLevel(project.id, viewer.userId)
      : null;
    if (!canReadProject(project.visibility as never, viewer, accessLevel))
      throw new NotFoundError('Project');
    return { project, accessLevel };
  }

  /**
   * Resolves a source to a store query, or to null when the answer is an empty list (a private or
   * blocked profile answers `[]`, not 404, as GitLab does).
   */
  async query(
    source: ActivitySource,
    filter: EventFilter,
    viewer: Viewer | null,
  ): Promise<EventQuery | null> {
    if (source.kind === 'user') {
      return this.userQuery(await this.findUser(source.idOrUsername), filter, viewer);
    }
    if (source.kind === 'project') {
      return this.projectQuery(await this.findProject(source.idOrPath, viewer), filter, viewer);
    }
    if (!viewer) throw new Error('viewer source needs an authenticated viewer');
    const storeSource: EventSource =
      source.scope === 'all'
        ? { kind: 'memberships', userId: viewer.userId }
        : { kind: 'author', userId: viewer.userId };
    return { source: storeSource, filter, viewer };
  }

  /**
   * A user's events when the caller already holds the user row (GraphQL's `user { events }`):
   * the same rule as `query`, without looking the user up again.
   */
  userQuery(user: UserRow, filter: EventFilter, viewer: Viewer | null): EventQuery | null {
    const profile = { id: user.id, state: user.state, privateProfile: user.private_profile === 1 };
    if (!canReadUserProfile(profile, viewer)) return null;
    return { source: { kind: 'author', userId: user.id }, filter, viewer };
  }

  /**
   * A project's events when the caller already resolved the project for this viewer with
   * `findProject` (GraphQL's `project { events }`): no second lookup.
   */
  projectQuery(resolved: ResolvedProject, filter: EventFilter, viewer: Viewer | null): EventQuery {
    const { project, accessLevel } = resolved;
    return {
      source: {
        kind: 'project',
        projectId: project.id,
        visibility: project.visibility,
        accessLevel,
      },
      filter,
      viewer,
    };
  }

  /** Offset pagination as REST serves it. */
  async listPage(
    source: ActivitySource,
    filter: EventFilter,
    viewer: Viewer | null,
    page: { page: number; perPage: number },
  ): Promise<OffsetListing> {
    const q = await this.query(source, filter, viewer);
    if (!q) return { events: [], total: 0, hasNext: false };
    const now = this.clock.now();
    const entry = this.cache.entry<OffsetListing>(cacheKey(q), now);
    const offset = (page.page - 1) * page.perPage;
    const pageKey = `${offset}:${page.perPage}`;
    const cached = entry.pages?.get(pageKey);
    if (cached) return cached;
    if (entry.count === undefined) entry.count = await this.store.events.count(q, MAX_COUNT);
    const total = reportedTotal(entry.count);
    // A known count past the end: no need to ask the database.
    if (total !== null && offset >= total) return { events: [], total, hasNext: false };
    const { fromId, skip } = await this.seek(q, entry.checkpoints, offset);
    const rows =
      fromId === undefined
        ? []
        : await this.store.events.list(
            q,
            { kind: 'offset', offset: skip, limit: page.perPage + 1 },
            fromId,
          );
    const hasNext = rows.length > page.perPage;
    const listing = { events: await this.hydrate(rows.slice(0, page.perPage)), total, hasNext };
    rememberPage(entry, pageKey, listing);
    return listing;
  }

  /** Keyset pagination as GraphQL serves it (cursor = event id). */
  async listWindow(
    q: EventQuery,
    window: { afterId?: number; beforeId?: number; limit: number; reverse?: boolean },
  ): Promise<EventRow[]> {
    return this.store.events.list(q, { kind: 'keyset', ...window });
  }

  /** The capped count of a query (null above the cap), cached like REST's. */
  async total(q: EventQuery): Promise<number | null> {
    const entry = this.cache.entry(cacheKey(q), this.clock.now());
    if (entry.count === undefined) entry.count = await this.store.events.count(q, MAX_COUNT);
    return reportedTotal(entry.count);
  }

  /**
   * Where to start walking for `offset`: the nearest checkpoint at or before it, placing missing
   * checkpoints on the way. `fromId` undefined means the offset is past the last row.
   */
  private async seek(
    q: EventQuery,
    checkpoints: Map<number, number>,
    offset: number,
  ): Promise<{ fromId: number | null | undefined; skip: number }> {
    const target = Math.floor(offset / CHECKPOINT);
    if (target === 0) return { fromId: null, skip: offset };
    let k = target;
    while (k > 0 && !checkpoints.has(k)) k--;
    let fromId: number | null = k === 0 ? null : checkpoints.get(k)!;
    // Offsets beyond the count cap are placed in one step: there is nothing cheaper to reuse.
    const id = await this.store.events.idAt(q, fromId, (target - k) * CHECKPOINT);
    if (id === null) return { fromId: undefined, skip: 0 };
    checkpoints.set(target, id);
    fromId = id;
    return { fromId, skip: offset - target * CHECKPOINT };
  }

  /** Batch-loads everything the events' views need (see event-views.ts). */
  hydrate(rows: readonly EventRow[]): Promise<EventView[]> {
    return hydrateEvents(this.store, rows);
  }
}

/** Everything that changes a listing's rows, as a stable key. */
function cacheKey(q: EventQuery): string {
  const f = q.filter;
  return [
    JSON.stringify(q.source),
    q.viewer ? `${q.viewer.userId}:${q.viewer.admin ? 1 : 0}` : '-',
    f.action ?? '',
    f.targetType ?? '',
    f.createdBefore ?? '',
    f.createdFrom ?? '',
    f.sort,
  ].join('|');
}
