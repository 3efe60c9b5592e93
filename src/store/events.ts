/** The event log, one object for its callers; each concept lives in a file of events/. */
import type { Kysely } from 'kysely';
import type { Dialect } from './database.js';
import type { SharedRead } from './per-turn.js';
import { RowCache, type RowVersion } from './row-cache.js';
import type { Database, NewEvent, PushPayloadRow } from './schema.js';
import type { TurnReading } from './turn-reading.js';
import { append, byIds } from './events/append.js';
import { count, countByDay, walkCount } from './events/counts.js';
import { type Explained, explain } from './events/explain.js';
import * as heads from './events/head.js';
import { memberProjects } from './events/memberships.js';
import type { EventContext, EventQuery, EventWindow, Memberships } from './events/query.js';
import { dropExpiredPartitions, ensurePartitions, partitions } from './events/partitions.js';
import { idAt, list, since } from './events/walks.js';
import {
  type FollowedSet,
  type StarredSet,
  followedUsers,
  starredProjects,
} from './events/social.js';
import type { Viewer } from '../domain/visibility.js';
import { type PruneOptions, pruneBefore, prunePlan } from './events/prune.js';

export type { EventChange, ListingHead } from './events/head.js';
export type { PruneOptions, PrunePlan, Pruned } from './events/prune.js';
export {
  type EventQuery,
  type EventSource,
  type EventWindow,
  type MemberProject,
  dayOf,
  isSocial,
} from './events/query.js';
export { type StarredProject, MAX_SOCIAL_PARTS } from './events/social.js';

export class EventStore {
  private readonly ctx: EventContext;

  constructor(
    db: Kysely<Database>,
    dialect: Dialect,
    membershipsVersion: RowVersion = () => null,
    turnReading?: SharedRead<TurnReading>,
    prepared: Kysely<Database> = db,
    /** What the starred and followed sets depend on: stars, follows, projects, members, users. */
    socialVersion: RowVersion = () => null,
  ) {
    this.ctx = {
      db,
      prepared,
      dialect,
      members: new RowCache<number, Memberships>(membershipsVersion),
      starred: new RowCache<string, StarredSet>(socialVersion),
      followed: new RowCache<string, FollowedSet>(socialVersion),
      walkChoices: new Map(),
      turnReading,
    };
  }

  head = () => heads.head(this.ctx);
  epochs = () => heads.epochs(this.ctx);
  bumpEpoch = (projectId: number | null) => heads.bumpEpoch(this.ctx, projectId);
  changes = (afterId: number, upTo: number) => heads.changes(this.ctx, afterId, upTo);
  appendedAfter = (afterId: number, limit: number) => heads.appendedAfter(this.ctx, afterId, limit);
  newestId = () => heads.newestId(this.ctx);
  memberProjects = (userId: number, day?: string) => memberProjects(this.ctx, userId, day);
  starredProjects = (viewer: Viewer, day: string) => starredProjects(this.ctx, viewer, day);
  followedUsers = (viewer: Viewer) => followedUsers(this.ctx, viewer);
  count = (q: EventQuery, cap: number) => count(this.ctx, q, cap);
  walkCount = (q: EventQuery, cap: number) => walkCount(this.ctx, q, cap);
  countByDay = (
    q: EventQuery,
    segments: ReadonlyArray<{ from: number; to: number; offset: number }>,
  ) => countByDay(this.ctx, q, segments);
  idAt = (q: EventQuery, fromId: number | null, skip: number) => idAt(this.ctx, q, fromId, skip);
  list = (q: EventQuery, window: EventWindow, fromId: number | null = null) =>
    list(this.ctx, q, window, fromId);
  since = (q: EventQuery, afterId: number, limit: number, projects?: readonly number[]) =>
    since(this.ctx, q, afterId, limit, projects);
  explain = (q: EventQuery, what: Explained, analyze = false) =>
    explain(this.ctx, q, what, analyze);
  append = (event: NewEvent, push?: Omit<PushPayloadRow, 'event_id'>) =>
    append(this.ctx, event, push);
  byIds = (ids: readonly number[]) => byIds(this.ctx, ids);
  /** Retention: one batch of the oldest events before `cutoff`, with what depends on them. */
  pruneBefore = (cutoff: number, batchSize: number, options: PruneOptions) =>
    pruneBefore(this.ctx, cutoff, batchSize, options);
  prunePlan = (cutoff: number, options: PruneOptions) => prunePlan(this.ctx, cutoff, options);
  /** PostgreSQL's event partitions (migration 027), lowest ids first; none on SQLite. */
  partitions = () => partitions(this.ctx);
  /** Creates the partitions the next ids need (and `ids`, for a bulk load); their names. */
  ensurePartitions = (ids?: { from: number; through: number }) => ensurePartitions(this.ctx, ids);
  /** Drops whole partitions whose newest event is older than `cutoff` (epoch ms). */
  dropExpiredPartitions = (cutoff: number) => dropExpiredPartitions(this.ctx, cutoff);
}
