/**
 * The sources of the starred and followed listings (issue 33): the projects a user starred that
 * they may read, and the users they follow whose profile they may read. A listing carries the set
 * it was resolved with in its source, so the set is part of its key and mark: a star or a follow
 * taken or dropped makes another listing, in every process, at once.
 */
import { createHash } from 'node:crypto';
import { canReadProject, canReadUserProfile, type Viewer } from '../../domain/visibility.js';
import { sql } from 'kysely';
import { type Visibility, actionCode } from '../../domain/vocabulary.js';
import { memberProjects } from './memberships.js';
import { type EventContext, type EventQuery, isSocial, keepChoice, keptChoice } from './query.js';
import { tallyShares } from './shares.js';

/** A starred project the viewer may read, as its per-project walk needs it. */
export interface StarredProject {
  projectId: number;
  visibility: string;
  /** The viewer's access level there, or null for a non-member. */
  accessLevel: number | null;
}

/**
 * A viewer's readable starred projects or followed users, read once per change of what they
 * depend on, with `set`: a digest naming these exact members, so a listing's key and mark name its
 * set without hashing hundreds of ids on every request.
 */
export interface StarredSet {
  projects: readonly StarredProject[];
  set: string;
}
export interface FollowedSet {
  followees: readonly number[];
  set: string;
}

function digest(members: unknown): string {
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url').slice(0, 16);
}

/**
 * Above this many sources a starred or followed listing is one joined walk. SQLite refuses a
 * compound SELECT of more than 500 terms; GitLab's 300 follows fit, and so do 500 stars.
 */
export const MAX_SOCIAL_PARTS = 500;

/** The projects `viewer` starred and may read on `day`, in project id order. */
export function starredProjects(
  ctx: EventContext,
  viewer: Viewer,
  day: string,
): Promise<StarredSet> {
  const key = `${viewer.userId}:${viewer.admin}:${day}`;
  return ctx.starred.get(key, () => readStarredProjects(ctx, viewer, day));
}

async function readStarredProjects(
  ctx: EventContext,
  viewer: Viewer,
  day: string,
): Promise<StarredSet> {
  const rows = await ctx.prepared
    .selectFrom('project_stars as s')
    .innerJoin('projects as p', 'p.id', 's.project_id')
    .select(['s.project_id', 'p.visibility'])
    .where('s.user_id', '=', viewer.userId)
    .orderBy('s.project_id')
    .execute();
  if (rows.length === 0) return { projects: [], set: digest([]) };
  const levels = new Map(
    (await memberProjects(ctx, viewer.userId, day)).map((m) => [m.projectId, m.accessLevel]),
  );
  const starred: StarredProject[] = [];
  for (const row of rows) {
    const accessLevel = levels.get(row.project_id) ?? null;
    if (!canReadProject(row.visibility as Visibility, viewer, accessLevel)) continue;
    starred.push({ projectId: row.project_id, visibility: row.visibility, accessLevel });
  }
  return { projects: starred, set: digest(starred) };
}

/**
 * The users `viewer` follows whose profile they may read (a private or blocked profile's events
 * are not listed, as `/users/:id/events` answers `[]` for it), in id order.
 */
export function followedUsers(ctx: EventContext, viewer: Viewer): Promise<FollowedSet> {
  return ctx.followed.get(`${viewer.userId}:${viewer.admin}`, () => readFollowedUsers(ctx, viewer));
}

async function readFollowedUsers(ctx: EventContext, viewer: Viewer): Promise<FollowedSet> {
  const rows = await ctx.prepared
    .selectFrom('user_follows as f')
    .innerJoin('users as u', 'u.id', 'f.followee_id')
    .select(['u.id', 'u.state', 'u.private_profile'])
    .where('f.follower_id', '=', viewer.userId)
    .orderBy('u.id')
    .execute();
  const followees = rows
    .filter((u) =>
      canReadUserProfile(
        { id: u.id, state: u.state, privateProfile: Boolean(u.private_profile) },
        viewer,
      ),
    )
    .map((u) => u.id);
  return { followees, set: digest(followees) };
}

/**
 * The listing with its set narrowed to the sources that hold any event of its action and target
 * type, by the tallies (migration 017), in one statement whatever the set's size. Exact for the
 * listing's walks: a tally moves in the transaction of its event, and the walks read only ids up
 * to a settled head, which this reads after. Other listings are returned as they are.
 */
export async function withActiveSources(ctx: EventContext, q: EventQuery): Promise<EventQuery> {
  const ids = sourceIds(q);
  return ids.length === 0 ? q : restrictedTo(q, await sourcesWithEvents(ctx, q, ids));
}

/** A starred or followed listing with its set cut to `ids`; other listings as they are. */
function restrictedTo(q: EventQuery, ids: readonly number[]): EventQuery {
  const { source } = q;
  if (!isSocial(source)) return q;
  const active = new Set(ids);
  return source.kind === 'starred'
    ? {
        ...q,
        source: { ...source, projects: source.projects.filter((p) => active.has(p.projectId)) },
      }
    : { ...q, source: { ...source, followees: source.followees.filter((id) => active.has(id)) } };
}

/** Which of `ids` (projects of a starred listing, authors of a followed one) have tallied events. */
async function sourcesWithEvents(
  ctx: EventContext,
  q: EventQuery,
  ids: readonly number[],
): Promise<number[]> {
  const column = sql.ref(q.source.kind === 'starred' ? 't.project_id' : 't.author_id');
  // The set is one parameter, so the statement is the same for every set (and planned once).
  const set =
    ctx.dialect === 'sqlite'
      ? sql`SELECT value AS id FROM json_each(${JSON.stringify(ids)})`
      : sql`SELECT unnest(${ids}::bigint[]) AS id`;
  const { action, targetType } = q.filter;
  const matching = [
    ...(action ? [sql` AND t.action = ${actionCode(action)}`] : []),
    ...(targetType ? [sql` AND t.target_type = ${targetType}`] : []),
  ];
  const { rows } = await sql<{ id: number | string }>`SELECT s.id FROM (${set}) AS s
    WHERE EXISTS (SELECT 1 FROM event_tallies AS t
      WHERE ${column} = s.id AND t.n > 0${sql.join(matching, sql``)})`.execute(ctx.prepared);
  return rows.map((row) => Number(row.id));
}

/**
 * The walks of a starred or followed listing over the sources that hold events
 * (`withActiveSources`): one per starred project or followed user, merged; or the listing alone,
 * one joined walk, when that is cheaper or there are more than MAX_SOCIAL_PARTS such sources.
 * Null: not one of these listings. `only`: just these projects or users (bringing it forward).
 */
export async function socialParts(
  ctx: EventContext,
  query: EventQuery,
  only?: readonly number[],
): Promise<EventQuery[] | null> {
  if (!isSocial(query.source)) return null;
  // Sources the change feed saw new events of since an entry's mark (`only`) hold some: the
  // tallies would say the same, one statement later.
  // One joined walk chosen a moment ago: it keeps the set's events, so it needs no narrowing.
  if (!only && query.upTo !== undefined && keptChoice(ctx, choiceKey(query))) return [query];
  const q = only ? restrictedTo(query, only) : await withActiveSources(ctx, query);
  const ids = sourceIds(q);
  if (ids.length > MAX_SOCIAL_PARTS || (!only && (await joinedIsCheaper(ctx, q, ids)))) return [q];
  const { source } = q;
  return source.kind === 'starred'
    ? source.projects.map((p) => ({ ...q, source: { kind: 'project', ...p } }))
    : ids.map((userId) => ({ ...q, source: { kind: 'author', userId } }));
}

/** A starred listing's projects or a followed listing's users. */
function sourceIds(q: EventQuery): readonly number[] {
  const { source } = q;
  if (source.kind === 'starred') return source.projects.map((p) => p.projectId);
  return source.kind === 'followed' ? source.followees : [];
}

/** A set's walk choice is kept by its viewer, filter and set (its digest, which names its members). */
function choiceKey(q: EventQuery): string {
  const { source, viewer } = q;
  const { action, targetType } = q.filter;
  const set = isSocial(source) ? source.set : '';
  return `${source.kind}:${viewer?.userId ?? ''}:${action ?? ''}:${targetType ?? ''}:${set}`;
}

/**
 * One walk of all events in id order, keeping the set's, is cheaper than a walk per source when
 * the set's readable events are at least this share of all: it reads about 1/share events a row.
 */
const JOINED_MIN_SHARE = 1 / 20;

/**
 * Whether one joined walk is cheaper than merged ones, by the readable tallies of the set against
 * the ids up to the head (all events, or more after pruning), kept a while (query.ts `keptChoice`).
 */
async function joinedIsCheaper(
  ctx: EventContext,
  q: EventQuery,
  ids: readonly number[],
): Promise<boolean> {
  const { source, upTo } = q;
  if (upTo === undefined || ids.length === 0) return false;
  const key = choiceKey(q);
  const kept = keptChoice(ctx, key);
  if (kept !== undefined) return kept;
  const column = source.kind === 'starred' ? 't.project_id' : 't.author_id';
  const { readable } = await tallyShares(ctx, q, { column, ids }, true);
  const shown = readable.reduce((sum, p) => sum + p.n, 0);
  return keepChoice(ctx, key, shown >= upTo * JOINED_MIN_SHARE);
}
