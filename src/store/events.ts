/**
 * Event listings with visibility applied inside the query, so every page is full and counts are
 * exact. Rules come from domain/visibility; this file only turns them into SQL.
 */
import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { EventFilter } from '../domain/filters.js';
import {
  CONFIDENTIAL_MIN_ACCESS,
  PRIVATE_CODE_MIN_ACCESS,
  type Viewer,
} from '../domain/visibility.js';
import { actionCode } from '../domain/vocabulary.js';
import type { Database, EventRow, NewEvent, PushPayloadRow } from './schema.js';

/** Where the events come from. */
export type EventSource =
  /** Events authored by a user, in projects the viewer can read. */
  | { kind: 'author'; userId: number }
  /** Events of one project the caller has already found readable. */
  | {
      kind: 'project';
      projectId: number;
      visibility: string;
      /** The viewer's access level in this project, or null for non-members. */
      accessLevel: number | null;
    }
  /** Events, by anyone, in every project the user is a member of (REST `scope=all`). */
  | { kind: 'memberships'; userId: number };

export interface EventQuery {
  source: EventSource;
  filter: EventFilter;
  viewer: Viewer | null;
}

export type EventWindow =
  | { kind: 'offset'; offset: number; limit: number }
  /** Keyset: ids strictly beyond `afterId` in the sort direction (GraphQL cursors). */
  | { kind: 'keyset'; afterId?: number; beforeId?: number; limit: number; reverse?: boolean };

type EventsQuery = SelectQueryBuilder<
  Database & { e: Database['events']; p: Database['projects']; m: Database['project_members'] },
  'e' | 'p' | 'm',
  object
>;

const PUSHED = actionCode('pushed');
const PROJECT_ACTIVITY_INTERVAL_MS = 60 * 60 * 1000;

export class EventStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** The base query: source, filter and visibility, no order or limit. */
  private base(q: EventQuery) {
    const { source, filter, viewer } = q;
    const viewerId = viewer?.userId ?? null;
    const admin = viewer?.admin ?? false;
    let query = this.db.selectFrom('events as e') as unknown as EventsQuery;

    if (source.kind === 'project') {
      query = query.where('e.project_id', '=', source.projectId);
    } else {
      query = query.innerJoin('projects as p', 'p.id', 'e.project_id');
      if (viewerId !== null) {
        query = query.leftJoin('project_members as m', (join) =>
          join.onRef('m.project_id', '=', 'e.project_id').on('m.user_id', '=', viewerId),
        );
      }
      if (source.kind === 'author') query = query.where('e.author_id', '=', source.userId);
      else {
        query = query.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('project_members as sm')
              .select('sm.user_id')
              .whereRef('sm.project_id', '=', 'e.project_id')
              .where('sm.user_id', '=', source.userId),
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

    if (filter.action) query = query.where('e.action', '=', actionCode(filter.action));
    if (filter.targetType) query = query.where('e.target_type', '=', filter.targetType);
    if (filter.kinds) {
      const kinds = filter.kinds;
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

    if (!admin) {
      query = this.applyConfidentiality(query, source, viewerId);
      query = this.applyCodeAccess(query, source, viewerId);
    }
    return query;
  }

  /** Confidential issues and their notes: Reporter+ members and the author only. */
  private applyConfidentiality(query: EventsQuery, source: EventSource, viewerId: number | null) {
    if (source.kind === 'project' && (source.accessLevel ?? 0) >= CONFIDENTIAL_MIN_ACCESS)
      return query;
    const hidden = (eb: ExpressionBuilder<never, never>) => {
      const inner = (eb as unknown as ExpressionBuilder<Database & { e: Database['events'] }, 'e'>)
        .selectFrom('issues as ci')
        .select('ci.id')
        .whereRef('ci.id', '=', 'e.issue_id')
        .where('ci.confidential', '=', 1);
      return viewerId === null ? inner : inner.where('ci.author_id', '<>', viewerId);
    };
    return query.where((eb) => {
      const ors = [eb('e.issue_id', 'is', null), eb.not(eb.exists(hidden(eb as never)))];
      if (source.kind !== 'project' && viewerId !== null) {
        ors.push(eb('m.access_level', '>=', CONFIDENTIAL_MIN_ACCESS));
      }
      return eb.or(ors);
    });
  }

  /** Push events of a private project need Reporter+ (guests cannot download code). */
  private applyCodeAccess(query: EventsQuery, source: EventSource, viewerId: number | null) {
    if (source.kind === 'project') {
      if (source.visibility !== 'private' || (source.accessLevel ?? 0) >= PRIVATE_CODE_MIN_ACCESS) {
        return query;
      }
      return query.where('e.action', '<>', PUSHED);
    }
    return query.where((eb) => {
      const ors = [eb('e.action', '<>', PUSHED), eb('p.visibility', '<>', 'private')];
      if (viewerId !== null) ors.push(eb('m.access_level', '>=', PRIVATE_CODE_MIN_ACCESS));
      return eb.or(ors);
    });
  }

  /** Counts up to `cap + 1` matching events (a capped count walks at most that many rows). */
  /** The highest event id (0 for none): events are only ever appended, so its rate is theirs. */
  async newestId(): Promise<number> {
    const row = await this.db
      .selectFrom('events')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  /**
   * Events after `afterId`, in id order, without visibility: only what live delivery needs to tell
   * which subscriptions may be concerned (each then reads through its own listing).
   */
  async since(
    afterId: number,
    limit: number,
  ): Promise<Pick<EventRow, 'id' | 'project_id' | 'author_id' | 'action' | 'target_type'>[]> {
    return this.db
      .selectFrom('events')
      .select(['id', 'project_id', 'author_id', 'action', 'target_type'])
      .where('id', '>', afterId)
      .orderBy('id', 'asc')
      .limit(limit)
      .execute();
  }

  async count(q: EventQuery, cap: number): Promise<number> {
    const inner = this.base(q)
      .select('e.id')
      .limit(cap + 1);
    const row = await this.db
      .selectFrom(inner.as('capped'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * How many of a listing's events fall on each UTC day, as days since the epoch (the contribution
   * calendar). Bound the listing with `filter.createdFrom`: this walks every matching row.
   */
  async countByDay(q: EventQuery): Promise<Array<{ day: number; count: number }>> {
    // Integer division in both dialects; the cast keeps SQLite from handing back a REAL.
    const day = sql<number>`cast(e.created_at / 86400000 as integer)`;
    const rows = await this.base(q)
      .select((eb) => [day.as('day'), eb.fn.countAll<number>().as('n')])
      .groupBy(day)
      .execute();
    return rows.map((row) => ({ day: Number(row.day), count: Number(row.n) }));
  }

  /**
   * The id found `skip` rows past `fromId` (inclusive) in sort order, or past the start when
   * `fromId` is null. Used to place seek checkpoints for deep offset pages.
   */
  async idAt(q: EventQuery, fromId: number | null, skip: number): Promise<number | null> {
    const asc = q.filter.sort === 'asc';
    let query = this.base(q).select('e.id');
    if (fromId !== null) query = query.where('e.id', asc ? '>=' : '<=', fromId);
    const row = await query
      .orderBy('e.id', asc ? 'asc' : 'desc')
      .limit(1)
      .offset(skip)
      .executeTakeFirst();
    return row ? row.id : null;
  }

  /**
   * One window of events in sort order. For offset windows, `fromId` (a checkpoint id at or before
   * the offset) lets the database start the walk there instead of at the first row.
   */
  async list(
    q: EventQuery,
    window: EventWindow,
    fromId: number | null = null,
  ): Promise<EventRow[]> {
    const asc = q.filter.sort === 'asc';
    let query = this.base(q).selectAll('e') as unknown as SelectQueryBuilder<
      Database & { e: Database['events'] },
      'e',
      EventRow
    >;
    let descending = !asc;
    if (window.kind === 'offset') {
      if (fromId !== null) query = query.where('e.id', asc ? '>=' : '<=', fromId);
      query = query.offset(window.offset);
    } else {
      if (window.afterId !== undefined)
        query = query.where('e.id', asc ? '>' : '<', window.afterId);
      if (window.beforeId !== undefined)
        query = query.where('e.id', asc ? '<' : '>', window.beforeId);
      if (window.reverse) descending = !descending;
    }
    const rows = await query
      .orderBy('e.id', descending ? 'desc' : 'asc')
      .limit(window.limit)
      .execute();
    return window.kind === 'keyset' && window.reverse ? rows.reverse() : rows;
  }

  /**
   * Appends one event (and its push payload) and returns its row. Call it inside the transaction
   * that makes the change the event records.
   */
  async append(event: NewEvent, push?: Omit<PushPayloadRow, 'event_id'>): Promise<EventRow> {
    // GitLab resets a project's last activity at most once an hour (Event#reset_project_activity):
    // a busy project's row is not rewritten, and so not locked, by every event. It comes first:
    // on PostgreSQL inserting an event takes the events lock (migration 010), and every row lock
    // a write takes must come before that one, or two writers could wait on each other.
    await this.db
      .updateTable('projects')
      .set({ last_activity_at: event.created_at })
      .where('id', '=', event.project_id)
      .where((eb) =>
        eb.or([
          eb('last_activity_at', 'is', null),
          eb('last_activity_at', '<', event.created_at - PROJECT_ACTIVITY_INTERVAL_MS),
        ]),
      )
      .execute();
    const row = await this.db
      .insertInto('events')
      .values(event)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (push) {
      await this.db
        .insertInto('push_event_payloads')
        .values({ ...push, event_id: row.id })
        .execute();
    }
    return row;
  }

  async byIds(ids: readonly number[]): Promise<EventRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('events')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
  }
}
