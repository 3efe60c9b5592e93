/**
 * Visibility in SQL: which events of a source a viewer may see (read_project, confidential issues,
 * private code), so every page is full and counts exact. The rules are domain/visibility's.
 */
import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely';
import {
  CONFIDENTIAL_MIN_ACCESS,
  PRIVATE_CODE_MIN_ACCESS,
  hidesPrivateCode,
  readsAllConfidential,
} from '../../domain/visibility.js';
import { TARGET_TYPES, actionCode } from '../../domain/vocabulary.js';
import { activeOn } from '../membership-sql.js';
import type { Database } from '../schema.js';
import { memberProjects } from './memberships.js';
import { type EventContext, type EventQuery, type EventSource, dayOf, isSocial } from './query.js';

type EventsDatabase = Database & {
  e: Database['events'];
  p: Database['projects'];
  m: Database['project_members'];
};
export type EventsQuery = SelectQueryBuilder<EventsDatabase, 'e' | 'p' | 'm', object>;

/**
 * What a query reads: the events, or tallies (017) of all, of those on confidential issues (018,
 * `hidden`, subtracted) or on the viewer's own (`own`, added back). Tallies know no ids or times.
 */
export type Rows = 'events' | 'tallies' | 'hidden' | 'own';

const TABLES = {
  events: 'events as e',
  tallies: 'event_tallies as e',
  hidden: 'confidential_tallies as e',
} as const;
const PUSHED = actionCode('pushed');
const MERGE_REQUEST = TARGET_TYPES.merge_request;
const NOTE = TARGET_TYPES.note;

/** The listing's rows the viewer may see: source, filter and visibility, no order or limit. */
export function visible(ctx: EventContext, q: EventQuery, from: Rows = 'events'): EventsQuery {
  const { source, filter, viewer } = q;
  const viewerId = viewer?.userId ?? null;
  const admin = viewer?.admin ?? false;
  const { db } = ctx;
  let query = (from === 'own'
    ? ownConfidential(ctx, source, viewerId)
    : db.selectFrom(TABLES[from])) as unknown as EventsQuery;

  if (source.kind === 'project') {
    query = query.where('e.project_id', '=', q.each ?? source.projectId);
    if (source.authorId !== undefined) query = query.where('e.author_id', '=', source.authorId);
  } else {
    // A starred or followed listing walked as one (social.ts `joinedIsCheaper`) reads the events in
    // id order and keeps the set's: SQLite's planner would rather gather the set's events by
    // another index and sort them all, so the join order and the set's column are fixed there.
    const idOrder = ctx.dialect === 'sqlite' && from === 'events' && isSocial(source);
    query = idOrder
      ? query.crossJoin('projects as p').whereRef('p.id', '=', 'e.project_id')
      : query.innerJoin('projects as p', 'p.id', 'e.project_id');
    if (viewerId !== null) {
      query = query.leftJoin('project_members as m', (join) =>
        join
          .onRef('m.project_id', '=', 'e.project_id')
          .on('m.user_id', '=', viewerId)
          .on(activeOn('m.expires_at', dayOf(q))),
      );
    }
    if (source.kind === 'author') query = query.where('e.author_id', '=', q.each ?? source.userId);
    else if (isSocial(source)) {
      // One joined walk over the set the listing was resolved with (social.ts), given as one
      // parameter so the statement is the same for every set.
      const ids =
        source.kind === 'starred' ? source.projects.map((p) => p.projectId) : source.followees;
      const column = sql.ref(source.kind === 'starred' ? 'e.project_id' : 'e.author_id');
      query = query.where(
        ctx.dialect === 'sqlite'
          ? sql<boolean>`${idOrder ? sql`+${column}` : column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`
          : sql<boolean>`${column} = ANY(${ids}::bigint[])`,
      );
    } else {
      query = query.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('project_members as sm')
            .select('sm.user_id')
            .whereRef('sm.project_id', '=', 'e.project_id')
            .where('sm.user_id', '=', source.userId)
            .where(activeOn('sm.expires_at', dayOf(q))),
        ),
      );
    }
    if (!admin) {
      // read_project: public to all, internal to signed-in users, private to members.
      query = query.where((eb) =>
        viewerId === null
          ? eb('p.visibility', '=', 'public')
          : eb.or([
              eb('p.visibility', 'in', ['public', 'internal']),
              eb('m.user_id', 'is not', null),
            ]),
      );
    }
  }

  if (q.upTo !== undefined && from === 'events') {
    // SQLite would walk `id <= head` as a rowid range (nearly the whole table) instead of the
    // listing's index; the unary plus keeps it a filter there.
    const id = ctx.dialect === 'sqlite' ? sql<number>`+e.id` : sql<number>`e.id`;
    query = query.where(id, '<=', q.upTo);
  }
  if (filter.action) query = query.where('e.action', '=', actionCode(filter.action));
  if (filter.targetType) query = query.where('e.target_type', '=', filter.targetType);
  const kinds = filter.kinds;
  if (kinds) {
    query = query.where((eb) =>
      eb.or(
        kinds.map((kind) => {
          const action = eb('e.action', 'in', kind.actions.map(actionCode));
          return kind.targetTypes
            ? eb.and([action, eb('e.target_type', 'in', [...kind.targetTypes])])
            : action;
        }),
      ),
    );
  }
  if (filter.createdBefore !== undefined)
    query = query.where('e.created_at', '<', filter.createdBefore);
  if (filter.createdFrom !== undefined)
    query = query.where('e.created_at', '>=', filter.createdFrom);

  if (admin) return query;
  if (from === 'events') query = confidentiality(query, q, viewerId);
  // Tallied events hidden by an issue's confidentiality, except from Reporter+ members.
  if ((from === 'hidden' || from === 'own') && source.kind !== 'project' && viewerId !== null) {
    query = query.where((eb) =>
      eb.or([eb('m.access_level', 'is', null), eb('m.access_level', '<', CONFIDENTIAL_MIN_ACCESS)]),
    );
  }
  return codeAccess(query, q, from);
}

/**
 * Per-issue tallies of the viewer's own confidential issues. The literal `confidential = 1` lets
 * both databases walk the partial index of confidential issues.
 */
function ownConfidential(ctx: EventContext, source: EventSource, viewerId: number | null) {
  // Anonymous readers own nothing; a count only asks for a signed-in viewer's.
  if (viewerId === null) throw new Error('own confidential issues need a signed-in viewer');
  let query = ctx.db
    .selectFrom('issues as ci')
    .innerJoin('issue_event_tallies as e', (join) =>
      join.onRef('e.issue_id', '=', 'ci.id').onRef('e.project_id', '=', 'ci.project_id'),
    )
    .where(sql<boolean>`ci.confidential = 1`)
    .where('ci.author_id', '=', viewerId);
  if (source.kind === 'project') query = query.where('ci.project_id', '=', source.projectId);
  return query;
}

/** Whether confidentiality can hide any of the listing's events from its viewer. */
export function mayHide(q: EventQuery): boolean {
  if (q.viewer?.admin) return false;
  return !(q.source.kind === 'project' && readsAllConfidential(q.source.accessLevel));
}

/** Confidential issues and their notes: Reporter+ members and the issue's author only. */
function confidentiality(query: EventsQuery, q: EventQuery, viewerId: number | null) {
  if (!mayHide(q)) return query;
  return query.where((eb) => {
    let hidden = eb
      .selectFrom('issues as ci')
      .select('ci.id')
      .whereRef('ci.id', '=', 'e.issue_id')
      // An event's issue is one of its project's (the tallies find confidential issues so too).
      .whereRef('ci.project_id', '=', 'e.project_id')
      .where('ci.confidential', '=', 1);
    if (viewerId !== null) hidden = hidden.where('ci.author_id', '<>', viewerId);
    const ors = [eb('e.issue_id', 'is', null), eb.not(eb.exists(hidden))];
    if (q.source.kind !== 'project' && viewerId !== null) {
      ors.push(eb('m.access_level', '>=', CONFIDENTIAL_MIN_ACCESS));
    }
    return eb.or(ors);
  });
}

/**
 * Pushes, merge request events and notes on merge requests of a private project need Reporter+
 * (domain/visibility). Tallies cannot tell notes apart: such counts walk (`hidesMergeRequestNotes`).
 */
function codeAccess(query: EventsQuery, q: EventQuery, from: Rows) {
  const { source } = q;
  const notes = from === 'events' && (source.kind === 'project' || !q.clearOfPrivateGuest);
  const shown = (eb: ExpressionBuilder<EventsDatabase, 'e' | 'p' | 'm'>) => {
    const target = sql<string>`coalesce(e.target_type, '')`;
    const ands = [eb('e.action', '<>', PUSHED), eb(target, '<>', MERGE_REQUEST)];
    if (notes) {
      ands.push(
        eb.or([
          eb(target, '<>', NOTE),
          eb('e.issue_id', 'is not', null),
          eb.exists(
            eb
              .selectFrom('notes as n')
              .select('n.id')
              .whereRef('n.id', '=', 'e.target_id')
              .whereRef('n.project_id', '=', 'e.project_id')
              .where('n.noteable_type', '<>', MERGE_REQUEST),
          ),
        ]),
      );
    }
    return eb.and(ands);
  };
  if (source.kind === 'project') {
    return hidesPrivateCode(source.visibility, source.accessLevel) ? query.where(shown) : query;
  }
  // Anonymous readers see public projects only.
  if (!q.viewer) return query;
  return query.where((eb) =>
    eb.or([
      eb('p.visibility', '<>', 'private'),
      eb('m.access_level', '>=', PRIVATE_CODE_MIN_ACCESS),
      shown(eb),
    ]),
  );
}

/** Whether `codeAccess` may hide notes on merge requests from this viewer (a private project's guest). */
export async function hidesMergeRequestNotes(ctx: EventContext, q: EventQuery): Promise<boolean> {
  const { source, viewer } = q;
  if (viewer?.admin) return false;
  if (source.kind === 'project') return hidesPrivateCode(source.visibility, source.accessLevel);
  if (!viewer) return false;
  const mine = await memberProjects(ctx, viewer.userId, dayOf(q));
  return mine.some((p) => hidesPrivateCode(p.visibility, p.accessLevel));
}
