/**
 * Walks over a listing's rows in id order. A `scope=all` listing (and a user's, when most of their
 * events are hidden from the viewer) merges per-project walks (docs/listing-caches.md, "No full scans").
 */
import { type SelectQueryBuilder, sql } from 'kysely';
import { hidesPrivateCode, readsAllConfidential } from '../../domain/visibility.js';
import { MAX_BIG_ID } from '../../domain/ids.js';
import type { Database, EventRow } from '../schema.js';
import { memberProjects } from './memberships.js';
import { PARTITION_IDS } from './partitions.js';
import {
  type EventContext,
  type EventQuery,
  type EventWindow,
  dayOf,
  keepChoice,
  keptChoice,
} from './query.js';
import { tallyShares } from './shares.js';
import { socialParts } from './social.js';
import { hidesMergeRequestNotes, visible } from './visibility.js';

/** Bounds, direction and size; `unordered` (counting) lets the database stop without sorting. */
export interface Walk {
  lower?: { id: number; inclusive: boolean };
  upper?: { id: number; inclusive: boolean };
  descending: boolean;
  limit: number;
  offset?: number;
  idsOnly?: boolean;
  unordered?: boolean;
}

type WalkQuery = SelectQueryBuilder<Database & { e: Database['events'] }, 'e', EventRow>;

/** Above this many projects scope=all (or a user's listing) is one joined walk. */
const MAX_MERGED_PROJECTS = 200;

/**
 * A bound as a condition on ids in the stored range (domain/ids.ts, 64-bit since migration 026):
 * beyond the range a bound means what it does at its end.
 */
function bounds(query: WalkQuery, w: Walk): WalkQuery {
  const { lower, upper } = w;
  if (lower) {
    if (lower.id > MAX_BIG_ID) query = query.where('e.id', '>', MAX_BIG_ID);
    else if (lower.id < 0) query = query.where('e.id', '>=', 0);
    else query = query.where('e.id', lower.inclusive ? '>=' : '>', lower.id);
  }
  if (upper) {
    if (upper.id > MAX_BIG_ID) query = query.where('e.id', '<=', MAX_BIG_ID);
    else if (upper.id < 0) query = query.where('e.id', '<', 0);
    else query = query.where('e.id', upper.inclusive ? '<=' : '<', upper.id);
  }
  return query;
}

/** One source's rows within the walk's bounds, in no stated order and unlimited. */
function bounded(ctx: EventContext, q: EventQuery, w: Walk): WalkQuery {
  const rows = visible(ctx, q);
  // Named, so a merged walk's ORDER BY finds it when the arms join other tables with an `id`.
  return bounds((w.idsOnly ? rows.select('e.id as id') : rows.selectAll('e')) as WalkQuery, w);
}

/** One walk of one source: bounded, ordered and limited. */
export function single(ctx: EventContext, q: EventQuery, w: Walk): WalkQuery {
  let query = bounded(ctx, q, w);
  if (!w.unordered) query = query.orderBy('e.id', w.descending ? 'desc' : 'asc');
  query = query.limit(w.limit);
  return w.offset ? query.offset(w.offset) : query;
}

/**
 * A walk as one query; null: nothing to walk. Merged arms are bare on SQLite (it merges them as
 * they stream) and limited on PostgreSQL (Merge Append). `only`: just these member projects.
 */
export async function walk(
  ctx: EventContext,
  query: EventQuery,
  w: Walk,
  only?: readonly number[],
): Promise<WalkQuery | null> {
  const q = await judged(ctx, query);
  const parts = (await memberParts(ctx, q, only)) ?? (await authorParts(ctx, q));
  if (!parts) return single(ctx, q, w);
  if (parts.length === 0) return null;
  if (parts.length === 1) return single(ctx, parts[0]!, w);
  const per = { ...w, limit: w.limit + (w.offset ?? 0), offset: 0 };
  if (parts.length >= EACH_MIN_PARTS && !w.unordered && per.limit <= EACH_MAX_ROWS) {
    return eachWalk(ctx, parts, w, per);
  }
  const arms = parts.map((part) =>
    ctx.dialect === 'sqlite'
      ? bounded(ctx, part, w)
      : (ctx.db.selectFrom(single(ctx, part, per).as('run')).selectAll() as unknown as WalkQuery),
  );
  let merged = arms.reduce((all, arm) => all.unionAll(arm));
  // The compound's ORDER BY names a result column, which is what SQLite accepts there.
  if (!w.unordered) merged = merged.orderBy('id', w.descending ? 'desc' : 'asc');
  merged = merged.limit(w.limit);
  return w.offset ? merged.offset(w.offset) : merged;
}

/**
 * From this many sources, a page near the start (up to EACH_MAX_ROWS rows in) is `eachWalk`'s
 * one statement per kind of source rather than one arm per source: the arms cost more to write
 * and plan than their rows to read. Deeper pages merge arms, which read only the rows they need.
 */
const EACH_MIN_PARTS = 16;
const EACH_MAX_ROWS = 200;

/**
 * Many sources' walks as one statement per kind of source (`armKind`), whatever their number:
 * for each member of the set (one parameter), its first rows by its own index walk (PostgreSQL:
 * `LATERAL`; SQLite: a correlated `IN`), then the first of all of them in order.
 */
function eachWalk(ctx: EventContext, parts: readonly EventQuery[], w: Walk, per: Walk): WalkQuery {
  const kinds = new Map<string, EventQuery[]>();
  for (const part of parts) {
    const kind = armKind(part);
    kinds.set(kind, [...(kinds.get(kind) ?? []), part]);
  }
  const arms = [...kinds.values()].map((group) => {
    const ids = group.map(({ source }) =>
      source.kind === 'project' ? source.projectId : source.kind === 'author' ? source.userId : 0,
    );
    const each = { ...group[0]!, each: sql.ref<number>('s.value') };
    const set =
      ctx.dialect === 'sqlite'
        ? sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`
        : sql`(SELECT unnest(${ids}::bigint[]) AS value)`;
    const rows =
      ctx.dialect === 'sqlite'
        ? ctx.db
            .selectFrom(set.as('s'))
            .innerJoin('events as o', (join) =>
              join.on(sql<boolean>`o.id IN (${single(ctx, each, { ...per, idsOnly: true })})`),
            )
            .selectAll('o')
        : ctx.db
            .selectFrom(set.as('s'))
            .innerJoinLateral(single(ctx, each, per).as('o'), (join) => join.onTrue())
            .selectAll('o');
    const arm = rows.orderBy('o.id', w.descending ? 'desc' : 'asc').limit(per.limit);
    return ctx.db.selectFrom(arm.as('run')).selectAll() as unknown as WalkQuery;
  });
  let merged = arms.reduce((all, arm) => all.unionAll(arm));
  merged = merged.orderBy('id', w.descending ? 'desc' : 'asc').limit(w.limit);
  return w.offset ? merged.offset(w.offset) : merged;
}

/** Sources whose walks differ only in their id (visibility.ts: the same conditions apply). */
function armKind({ source }: EventQuery): string {
  if (source.kind !== 'project') return source.kind;
  const { visibility, accessLevel, authorId } = source;
  const hides = `${readsAllConfidential(accessLevel)}:${hidesPrivateCode(visibility, accessLevel)}`;
  return `project:${hides}:${authorId ?? ''}`;
}

/** The query with `clearOfPrivateGuest` settled for a signed-in viewer's joined walks. */
export async function judged(ctx: EventContext, q: EventQuery): Promise<EventQuery> {
  if (q.source.kind === 'project' || q.clearOfPrivateGuest !== undefined) return q;
  if (!q.viewer || q.viewer.admin) return q;
  return { ...q, clearOfPrivateGuest: !(await hidesMergeRequestNotes(ctx, q)) };
}

/**
 * The per-project walks a `scope=all` listing merges (per project or per followed user for a
 * starred or followed one); null: not one, or one joined walk.
 */
export async function memberParts(
  ctx: EventContext,
  q: EventQuery,
  only?: readonly number[],
): Promise<EventQuery[] | null> {
  if (q.source.kind !== 'memberships') return socialParts(ctx, q, only);
  let projects = await memberProjects(ctx, q.source.userId, dayOf(q));
  if (projects.length > MAX_MERGED_PROJECTS) return null;
  if (only) projects = projects.filter((p) => only.includes(p.projectId));
  return projects.map((p) => ({ ...q, source: { kind: 'project', ...p } }));
}

/**
 * A user's listing as walks of the projects the viewer may read, when most of the user's events
 * (by the tallies) are hidden from the viewer. Null: one joined walk.
 */
async function authorParts(ctx: EventContext, q: EventQuery): Promise<EventQuery[] | null> {
  const { source, viewer } = q;
  if (source.kind !== 'author' || viewer?.admin) return null;
  // One joined walk is exact whatever the user's projects are, so that choice is kept a while
  // (a forward under writes would otherwise group the user's tallies again); merged walks need
  // every project of the user, so they are chosen afresh each time.
  const key = `user:${source.userId}:${viewer?.userId ?? ''}`;
  if (keptChoice(ctx, key)) return null;
  const { readable, hidden } = await tallyShares(ctx, q, {
    column: 't.author_id',
    ids: [source.userId],
  });
  const shown = readable.reduce((sum, p) => sum + p.n, 0);
  if (hidden <= shown || readable.length > MAX_MERGED_PROJECTS) {
    keepChoice(ctx, key, true);
    return null;
  }
  return readable.map(({ projectId, visibility, accessLevel }) => ({
    ...q,
    source: { kind: 'project', projectId, visibility, accessLevel, authorId: source.userId },
  }));
}

/** The walk behind a window of a listing in its sort order (`fromId`: a checkpoint to start at). */
export function walkOf(q: EventQuery, window: EventWindow, fromId: number | null): Walk {
  const asc = q.filter.sort === 'asc';
  if (window.kind === 'offset') {
    const { limit, offset } = window;
    if (fromId === null) return { descending: !asc, limit, offset };
    const bound = { id: fromId, inclusive: true };
    return { descending: !asc, ...(asc ? { lower: bound } : { upper: bound }), limit, offset };
  }
  // Keyset: afterId is beyond in sort order, beforeId before it; reverse walks from the far end.
  const w: Walk = { descending: window.reverse ? asc : !asc, limit: window.limit };
  const beyond = (id: number) => ({ id, inclusive: false });
  if (window.afterId !== undefined) w[asc ? 'lower' : 'upper'] = beyond(window.afterId);
  if (window.beforeId !== undefined) w[asc ? 'upper' : 'lower'] = beyond(window.beforeId);
  return w;
}

/** One window of events in sort order. */
export async function list(
  ctx: EventContext,
  q: EventQuery,
  window: EventWindow,
  fromId: number | null,
): Promise<EventRow[]> {
  const rows = await recentFirst(ctx, q, walkOf(q, window, fromId));
  return window.kind === 'keyset' && window.reverse ? rows.reverse() : rows;
}

/** The id `skip` rows past `fromId` (inclusive) in sort order, or past the start: checkpoints. */
export async function idAt(
  ctx: EventContext,
  q: EventQuery,
  fromId: number | null,
  skip: number,
): Promise<number | null> {
  const w = walkOf(q, { kind: 'offset', offset: skip, limit: 1 }, fromId);
  const [row] = await recentFirst(ctx, q, { ...w, idsOnly: true });
  return row ? row.id : null;
}

/**
 * A walk's rows; on PostgreSQL a newest-first walk with no lower bound is first tried over the
 * newest PARTITION_IDS ids below its top (at most two partitions). PostgreSQL plans an unbounded
 * walk over every partition below its head, and at ten million events planning those index walks
 * cost more than running them. The walk reads its newest rows first, so when the recent ids hold
 * all the rows it wants, they are its answer; otherwise the whole walk runs.
 */
async function recentFirst(ctx: EventContext, q: EventQuery, w: Walk): Promise<EventRow[]> {
  const run = async (walked: Walk) => (await walk(ctx, q, walked))?.execute() ?? [];
  const top = w.upper?.id ?? q.upTo;
  if (ctx.dialect !== 'postgres' || !w.descending || w.lower || w.unordered || top === undefined) {
    return run(w);
  }
  const floor = top - PARTITION_IDS;
  if (floor <= 0) return run(w);
  const recent = await run({ ...w, lower: { id: floor, inclusive: false } });
  return recent.length >= w.limit ? recent : run(w);
}

/** The listing's events above `afterId` (up to `upTo`), oldest first: bringing a listing forward. */
export async function since(
  ctx: EventContext,
  q: EventQuery,
  afterId: number,
  limit: number,
  projects?: readonly number[],
): Promise<EventRow[]> {
  const lower = { id: afterId, inclusive: false };
  const query = await walk(ctx, q, { lower, descending: false, limit }, projects);
  return query ? query.execute() : [];
}
