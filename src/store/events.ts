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
  canReadProject,
  hidesPrivateCode,
  readsAllConfidential,
} from '../domain/visibility.js';
import { TARGET_TYPES, type Visibility, actionCode } from '../domain/vocabulary.js';
import type { RowVersion, TurnReading } from './database.js';
import { PLAN_ONCE } from './plan-once.js';
import type { SharedRead } from './per-turn.js';
import { RowCache } from './row-cache.js';
import type { Database, EventRow, NewEvent, PushPayloadRow } from './schema.js';
import { MAX_ID } from '../domain/ids.js';
import { membershipActive, membershipDay } from '../domain/membership-expiry.js';
import { activeOn } from './membership-sql.js';

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
      /** Only this user's events there: one arm of a user's listing (see `authorParts`). */
      authorId?: number;
    }
  /** Events, by anyone, in every project the user is a member of (REST `scope=all`). */
  | { kind: 'memberships'; userId: number };

export interface EventQuery {
  source: EventSource;
  filter: EventFilter;
  viewer: Viewer | null;
  /**
   * Only events with ids up to this one (the head a reader saw, see `head()`): every query of one
   * answer then describes the same moment, however many commits land between its queries.
   */
  upTo?: number;
  /**
   * The UTC day memberships are judged on (domain/membership-expiry): one that expires on or
   * before it grants nothing. Absent: today by the system clock.
   */
  day?: string;
  /**
   * Set by the store once it knows: the viewer is Guest (or less) of no private project, so no
   * note on a merge request can be hidden from them and a walk need not read event rows to tell.
   */
  clearOfPrivateGuest?: boolean;
}

/** The day a query judges memberships on. */
export function dayOf(q: EventQuery): string {
  return q.day ?? membershipDay(Date.now());
}

/** A project the user of a `memberships` source belongs to, as its per-project walk needs it. */
export interface MemberProject {
  projectId: number;
  visibility: string;
  accessLevel: number;
}

/** What a reader needs to know whether its cached listings are current (see `head()`). */
export interface ListingHead {
  /** The highest committed event id: every id at or below it is settled (committed or never). */
  id: number;
  /** The epoch of all projects (`listing_epochs` row 0): moves when any project's moves. */
  epoch: number;
  /** Event deletions so far (row -1): SQLite may reuse a deleted highest id. */
  deletions: number;
  /**
   * The listing version (migrations 009, 016): moves when what written events show changes
   * (titles, names, notes, visibility, deletions), not when events are appended.
   */
  version: number;
  /** PostgreSQL: the shared reading it came from (`TurnReading.seq`); absent on SQLite. */
  seq?: number;
}

/**
 * The settled head's columns (`head()`), as one statement's select list: PostgreSQL's turn reading
 * (store/database.ts) reads them in the same statement as the counters it needs.
 */
export const SETTLED_HEAD_COLUMNS = `(SELECT max(id) FROM events) AS id,
  (SELECT epoch FROM listing_epochs WHERE project_id = 0) AS epoch,
  (SELECT epoch FROM listing_epochs WHERE project_id = -1) AS deletions,
  (SELECT value FROM listing_version WHERE id = 1) AS version`;

/** One appended event, as the change feed reports it. */
export interface EventChange {
  id: number;
  project_id: number;
  author_id: number;
  action: number;
  target_type: string | null;
}

/**
 * A walk over a listing's rows in id order: bounds, direction, how many. `unordered` (counting)
 * lets the database stop at `limit` rows without sorting them.
 */
interface Walk {
  lower?: { id: number; inclusive: boolean };
  upper?: { id: number; inclusive: boolean };
  descending: boolean;
  limit: number;
  offset?: number;
  idsOnly?: boolean;
  unordered?: boolean;
}

/**
 * A walk's bounds as conditions on ids in the stored range (domain/ids.ts): a cursor or an id from
 * a client may lie beyond it, and PostgreSQL refuses such a number for an integer column. Beyond
 * the range a bound means the same as at its end (`id > 2^40` matches what `id > MAX_ID` does).
 */
function lowerBound(b: { id: number; inclusive: boolean }): ['>' | '>=', number] {
  if (b.id > MAX_ID) return ['>', MAX_ID];
  if (b.id < 0) return ['>=', 0];
  return [b.inclusive ? '>=' : '>', b.id];
}

function upperBound(b: { id: number; inclusive: boolean }): ['<' | '<=', number] {
  if (b.id > MAX_ID) return ['<=', MAX_ID];
  if (b.id < 0) return ['<', 0];
  return [b.inclusive ? '<=' : '<', b.id];
}

/** Any bound: a count's events above the reader's head are the few committed since it read it. */
const ABOVE_HEAD_LIMIT = 2 ** 31 - 1;
/** Above this many projects scope=all (or a user's listing) is one joined walk, not per-project walks. */
const MAX_MERGED_PROJECTS = 200;
/**
 * How long a user's listing keeps the choice of one joined walk for a viewer (`authorParts`): the
 * choice only decides how fast, never what, so it may lag the user's projects by this much.
 */
const ONE_WALK_KEPT_MS = 10_000;
const ONE_WALK_ENTRIES = 10_000;

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
const MERGE_REQUEST = TARGET_TYPES.merge_request;
const NOTE = TARGET_TYPES.note;

type EventsDatabase = Database & {
  e: Database['events'];
  p: Database['projects'];
  m: Database['project_members'];
};

const PROJECT_ACTIVITY_INTERVAL_MS = 60 * 60 * 1000;

export class EventStore {
  private readonly members: RowCache<
    number,
    { projects: MemberProject[]; expiries: Array<string | null> }
  >;
  /** `author:viewer` → until when a user's listing for that viewer is one joined walk. */
  private readonly oneWalk = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres' = 'sqlite',
    membershipsVersion: RowVersion = () => null,
    private readonly turnReading?: SharedRead<TurnReading>,
    /** Where statements marked PLAN_ONCE run (database.ts `planOnce`); else `db`. */
    private readonly planOnce: Kysely<Database> = db,
  ) {
    this.members = new RowCache(membershipsVersion);
  }

  /**
   * The projects a user is a member of on `day` (expired memberships left out), with their
   * visibility and the user's access level.
   */
  async memberProjects(
    userId: number,
    day: string = membershipDay(Date.now()),
  ): Promise<MemberProject[]> {
    const { projects, expiries } = await this.members.get(userId, async () => {
      const rows = await this.db
        .selectFrom('project_members as m')
        .innerJoin('projects as p', 'p.id', 'm.project_id')
        .select(['m.project_id', 'm.access_level', 'm.expires_at', 'p.visibility'])
        .where('m.user_id', '=', userId)
        .orderBy('m.project_id')
        .execute();
      return {
        projects: rows.map((r) => ({
          projectId: r.project_id,
          visibility: r.visibility,
          accessLevel: r.access_level,
        })),
        expiries: rows.map((r) => r.expires_at),
      };
    });
    // Kept whole and judged on each read: expiry is a matter of the day, not of a write.
    if (expiries.every((expiresAt) => membershipActive(expiresAt, day))) return projects;
    return projects.filter((_, i) => membershipActive(expiries[i]!, day));
  }

  /**
   * The base query: source, filter and visibility, no order or limit. Over the events themselves,
   * or (`from`) over their tallies with the same rules: `tallies` are all of them, confidentiality
   * aside (migration 017); `hidden` the events of confidential issues (migration 018), which a
   * count subtracts; `own` those of them on the viewer's own confidential issues, which the viewer
   * may see and a count adds back. Tallies know no ids or times: the caller leaves out `upTo` and
   * the time filters.
   */
  private base(q: EventQuery, from: 'events' | 'tallies' | 'hidden' | 'own' = 'events') {
    const { source, filter, viewer } = q;
    const viewerId = viewer?.userId ?? null;
    const admin = viewer?.admin ?? false;
    let query = (from === 'events'
      ? this.db.selectFrom('events as e')
      : from === 'tallies'
        ? this.db.selectFrom('event_tallies as e')
        : from === 'hidden'
          ? this.db.selectFrom('confidential_tallies as e')
          : this.ownConfidential(source, viewerId)) as unknown as EventsQuery;

    if (source.kind === 'project') {
      query = query.where('e.project_id', '=', source.projectId);
      if (source.authorId !== undefined) query = query.where('e.author_id', '=', source.authorId);
    } else {
      query = query.innerJoin('projects as p', 'p.id', 'e.project_id');
      if (viewerId !== null) {
        query = query.leftJoin('project_members as m', (join) =>
          join
            .onRef('m.project_id', '=', 'e.project_id')
            .on('m.user_id', '=', viewerId)
            .on(activeOn('m.expires_at', dayOf(q))),
        );
      }
      if (source.kind === 'author') query = query.where('e.author_id', '=', source.userId);
      else {
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
      // SQLite would take `id <= head` (nearly the whole table) for a rowid range and walk it
      // instead of the listing's index; the unary plus keeps it a filter there. It costs only the
      // few rows above the head. PostgreSQL uses it as an index condition on the same walk.
      const id = this.dialect === 'sqlite' ? sql<number>`+e.id` : sql<number>`e.id`;
      query = query.where(id, '<=', q.upTo);
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
      if (from === 'events') query = this.applyConfidentiality(query, q, viewerId);
      // Tallied events hidden by an issue's confidentiality, except from Reporter+ members.
      if ((from === 'hidden' || from === 'own') && source.kind !== 'project' && viewerId !== null) {
        query = query.where((eb) =>
          eb.or([
            eb('m.access_level', 'is', null),
            eb('m.access_level', '<', CONFIDENTIAL_MIN_ACCESS),
          ]),
        );
      }
      query = this.applyCodeAccess(query, q, from);
    }
    return query;
  }

  /**
   * Per-issue tallies of the viewer's own confidential issues, whose events confidentiality hides
   * from others but not from them. The literal `confidential = 1` is what lets both databases walk
   * the partial index of confidential issues (by author, then project).
   */
  private ownConfidential(source: EventSource, viewerId: number | null) {
    // Anonymous readers own nothing; a count only asks for a signed-in viewer's.
    if (viewerId === null) throw new Error('own confidential issues need a signed-in viewer');
    let query = this.db
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
  private mayHide(q: EventQuery): boolean {
    if (q.viewer?.admin) return false;
    return !(q.source.kind === 'project' && readsAllConfidential(q.source.accessLevel));
  }

  /** Confidential issues and their notes: Reporter+ members and the issue's author only. */
  private applyConfidentiality(query: EventsQuery, q: EventQuery, viewerId: number | null) {
    if (!this.mayHide(q)) return query;
    const { source } = q;
    const hidden = (eb: ExpressionBuilder<never, never>) => {
      const inner = (eb as unknown as ExpressionBuilder<Database & { e: Database['events'] }, 'e'>)
        .selectFrom('issues as ci')
        .select('ci.id')
        .whereRef('ci.id', '=', 'e.issue_id')
        // An event's issue is one of its project's: another project's issue governs nothing here,
        // and the tallies (migration 017) find confidential issues by project.
        .whereRef('ci.project_id', '=', 'e.project_id')
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

  /**
   * Pushes, merge request events and notes on merge requests of a private project need Reporter+
   * (domain/visibility `canReadMergeRequests`: guests see neither code nor merge requests there).
   * A note's event is shown to those below Reporter only when its note is known to be elsewhere
   * (on an issue, or a note row of the event's project that is not on a merge request). Tallies
   * cannot tell notes apart (`from` other than events): a count whose listing this may hide notes
   * from walks instead (`hidesMergeRequestNotes`).
   */
  private applyCodeAccess(
    query: EventsQuery,
    q: EventQuery,
    from: 'events' | 'tallies' | 'hidden' | 'own',
  ) {
    const { source } = q;
    const viewerId = q.viewer?.userId ?? null;
    const notes = from === 'events' && (source.kind === 'project' || !q.clearOfPrivateGuest);
    const shown = (eb: ExpressionBuilder<EventsDatabase, 'e'>) => {
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
      if (!hidesPrivateCode(source.visibility, source.accessLevel)) return query;
      return query.where((eb) => shown(eb as never));
    }
    // Anonymous readers see public projects only (`base`).
    if (viewerId === null) return query;
    return query.where((eb) =>
      eb.or([
        eb('p.visibility', '<>', 'private'),
        eb('m.access_level', '>=', PRIVATE_CODE_MIN_ACCESS),
        shown(eb as never),
      ]),
    );
  }

  /**
   * Whether `applyCodeAccess` may hide notes on merge requests from this listing's viewer: a guest
   * (or less) of a private project whose events it may hold. Tallies cannot tell those notes from
   * others, so such a listing's count walks its events.
   */
  private async hidesMergeRequestNotes(q: EventQuery): Promise<boolean> {
    const { source, viewer } = q;
    if (viewer?.admin) return false;
    if (source.kind === 'project') return hidesPrivateCode(source.visibility, source.accessLevel);
    if (!viewer) return false;
    const mine = await this.memberProjects(viewer.userId, dayOf(q));
    return mine.some((p) => hidesPrivateCode(p.visibility, p.accessLevel));
  }

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
  async appendedAfter(
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

  /**
   * The head and the all-projects epoch, read in one statement (one snapshot). Every id at or
   * below the head is settled: on SQLite writers are serialized, on PostgreSQL every appender
   * holds one transaction lock from before its id is drawn until it commits (see `append`).
   */
  async head(): Promise<ListingHead> {
    if (this.turnReading) {
      const { headId, epoch, deletions, listingVersion, seq } = await this.turnReading();
      return { id: headId, epoch, deletions, version: listingVersion, seq };
    }
    const { rows } = await sql<{
      id: number | null;
      epoch: number | null;
      deletions: number | null;
      version: number | null;
    }>`
      SELECT ${sql.raw(SETTLED_HEAD_COLUMNS)}`.execute(this.db);
    const row = rows[0]!;
    return {
      id: Number(row.id ?? 0),
      epoch: Number(row.epoch ?? 0),
      deletions: Number(row.deletions ?? 0),
      version: Number(row.version ?? 0),
    };
  }

  /** Every project's epoch (projects never changed have none: 0). */
  async epochs(): Promise<Map<number, number>> {
    const rows = await this.db.selectFrom('listing_epochs').selectAll().execute();
    return new Map(rows.map((r) => [r.project_id, Number(r.epoch)]));
  }

  /**
   * Moves a project's epoch (and the all-projects one) in the caller's transaction, for changes the
   * triggers of migration 013 do not see. Null moves only the all-projects epoch.
   */
  async bumpEpoch(projectId: number | null): Promise<void> {
    const ids = projectId === null || projectId === 0 ? [0] : [projectId, 0];
    for (const id of ids) {
      await this.db
        .insertInto('listing_epochs')
        .values({ project_id: id, epoch: 1 })
        .onConflict((oc) =>
          oc.column('project_id').doUpdateSet({ epoch: sql`listing_epochs.epoch + 1` }),
        )
        .execute();
    }
  }

  /** Events appended after `afterId` up to `upTo` (both settled heads), id order, primary key walk. */
  async changes(afterId: number, upTo: number): Promise<EventChange[]> {
    return this.db
      .selectFrom('events')
      .select(['id', 'project_id', 'author_id', 'action', 'target_type'])
      .where('id', '>', afterId)
      .where('id', '<=', upTo)
      .orderBy('id')
      .execute();
  }

  /**
   * The per-project walks a memberships source merges, or null when it is one joined walk. `only`:
   * just these member projects (the caller knows the others have no rows in its walk).
   */
  private async parts(q: EventQuery, only?: readonly number[]): Promise<EventQuery[] | null> {
    if (q.source.kind !== 'memberships') return null;
    let projects = await this.memberProjects(q.source.userId, dayOf(q));
    if (projects.length > MAX_MERGED_PROJECTS) return null;
    if (only) projects = projects.filter((p) => only.includes(p.projectId));
    return projects.map((p) => ({
      ...q,
      source: {
        kind: 'project',
        projectId: p.projectId,
        visibility: p.visibility,
        accessLevel: p.accessLevel,
      },
    }));
  }

  /**
   * A user's listing as walks of the projects the viewer may read, when most of the user's events
   * are in projects the viewer may not: one joined walk of the user's events steps over every
   * hidden event to fill a page, which costs more than it returns once they are the majority
   * (migration 019). Null: one joined walk, where it reads at most about twice the rows it
   * returns (an admin; the user's projects all or mostly readable) or the user's projects are too
   * many to merge. Merging is not free either: each arm is one more index descent, and PostgreSQL
   * plans every arm on every run (merging nine projects for an outsider who missed 10 % of the
   * events doubled the median first request on the benchmark). The user's projects and their
   * sizes come from the event tallies (migration 017): a few index entries, committed with the
   * events they count, so every project with an event at or below the reader's head is among them.
   */
  private async authorParts(q: EventQuery): Promise<EventQuery[] | null> {
    const { source, viewer } = q;
    if (source.kind !== 'author' || viewer?.admin) return null;
    // One joined walk is exact whatever the user's projects are, so a recent choice of it is kept
    // without asking again: a reader's count, page and forward walks would each cost a round trip.
    // Merged walks need every project of the user, so that choice is made afresh each time.
    const key = `${source.userId}:${viewer?.userId ?? ''}`;
    const now = Date.now();
    if ((this.oneWalk.get(key) ?? 0) > now) return null;
    const authored = await this.db
      .selectFrom('event_tallies as t')
      .innerJoin('projects as p', 'p.id', 't.project_id')
      .select((eb) => ['t.project_id', 'p.visibility', eb.fn.sum<number>('t.n').as('n')])
      .where('t.author_id', '=', source.userId)
      .groupBy(['t.project_id', 'p.visibility'])
      .execute();
    const levels = new Map(
      viewer
        ? (await this.memberProjects(viewer.userId, dayOf(q))).map((p) => [
            p.projectId,
            p.accessLevel,
          ])
        : [],
    );
    let hidden = 0;
    let shown = 0;
    const readable = authored.filter((p) => {
      const ok = canReadProject(
        p.visibility as Visibility,
        viewer,
        levels.get(p.project_id) ?? null,
      );
      if (ok) shown += Number(p.n);
      else hidden += Number(p.n);
      return ok;
    });
    if (hidden <= shown || readable.length > MAX_MERGED_PROJECTS) {
      if (this.oneWalk.size >= ONE_WALK_ENTRIES) this.oneWalk.clear();
      this.oneWalk.set(key, now + ONE_WALK_KEPT_MS);
      return null;
    }
    return readable.map((p) => ({
      ...q,
      source: {
        kind: 'project',
        projectId: p.project_id,
        visibility: p.visibility,
        accessLevel: levels.get(p.project_id) ?? null,
        authorId: source.userId,
      },
    }));
  }

  /** The query with `clearOfPrivateGuest` settled for a signed-in viewer's joined walks. */
  private async judged(q: EventQuery): Promise<EventQuery> {
    if (q.source.kind === 'project' || q.clearOfPrivateGuest !== undefined) return q;
    if (!q.viewer || q.viewer.admin) return q;
    return { ...q, clearOfPrivateGuest: !(await this.hidesMergeRequestNotes(q)) };
  }

  /** One source's rows within the walk's bounds, in no stated order and unlimited. */
  private bounded(q: EventQuery, w: Walk) {
    let query = (w.idsOnly
      ? this.base(q).select('e.id')
      : this.base(q).selectAll('e')) as unknown as SelectQueryBuilder<
      Database & { e: Database['events'] },
      'e',
      EventRow
    >;
    if (w.lower) query = query.where('e.id', ...lowerBound(w.lower));
    if (w.upper) query = query.where('e.id', ...upperBound(w.upper));
    return query;
  }

  /** One walk of one source: the base query bounded, ordered and limited. */
  private single(q: EventQuery, w: Walk) {
    let query = this.bounded(q, w);
    if (!w.unordered) query = query.orderBy('e.id', w.descending ? 'desc' : 'asc');
    query = query.limit(w.limit);
    if (w.offset) query = query.offset(w.offset);
    return query;
  }

  /**
   * A walk as one query. A memberships source (scope=all) is a k-way merge: every member project is
   * one arm of a UNION ALL, walked on its own (project_id, id) or (project_id, action, id) index
   * (a user's listing, when merged: one arm per readable project on (author_id, project_id, id),
   * see `authorParts`) with that project's visibility rules, and the compound's ORDER BY id … LIMIT merges the arms as
   * they stream and stops at the page's end. A page reads O(offset + limit + projects) index
   * entries whatever the listing's size. Each dialect needs its own arms to merge rather than sort:
   * - SQLite: bare arms. It runs them as co-routines and merges them (MERGE (UNION ALL)). An arm
   *   with its own ORDER BY / LIMIT must be a derived table, which SQLite reads whole and sorts
   *   again: each arm read to offset + limit, two to three times the work at page 3 of six projects.
   * - PostgreSQL: arms limited to offset + limit, each in id order. It merges them (Merge Append
   *   over Limit over Index Scan Backward), pulling from each arm only what the page takes. It does
   *   not see that a bare arm's `project_id = ?` makes its index ordered by id, so it would read
   *   every arm whole and sort.
   * Null: nothing to walk.
   */
  private async walk(query: EventQuery, w: Walk, only?: readonly number[]) {
    const q = await this.judged(query);
    const parts = (await this.parts(q, only)) ?? (await this.authorParts(q));
    if (!parts) return this.single(q, w);
    if (parts.length === 0) return null;
    if (parts.length === 1) return this.single(parts[0]!, w);
    const per = { ...w, limit: w.limit + (w.offset ?? 0), offset: 0 };
    const arms = parts.map(
      (part) =>
        (this.dialect === 'sqlite'
          ? this.bounded(part, w)
          : this.db
              .selectFrom(this.single(part, per).as('run'))
              .selectAll()) as unknown as ReturnType<EventStore['bounded']>,
    );
    let merged = arms.reduce((all, arm) => all.unionAll(arm));
    // The compound's ORDER BY names a result column, which is what SQLite accepts there.
    if (!w.unordered) merged = merged.orderBy('id', w.descending ? 'desc' : 'asc');
    merged = merged.limit(w.limit);
    if (w.offset) merged = merged.offset(w.offset);
    return merged;
  }

  /**
   * Counts up to `cap + 1` matching events. Without a time filter it sums the listing's tallies
   * (migrations 017, 018), less what confidentiality hides from the viewer, less the listing's events
   * above `upTo` (a few, committed since the reader's head), all in one statement and so one
   * snapshot: a few hundred tally rows instead of walking up to `cap + 1` events.
   */
  async count(q: EventQuery, cap: number): Promise<number> {
    if (
      q.filter.createdBefore !== undefined ||
      q.filter.createdFrom !== undefined ||
      (await this.hidesMergeRequestNotes(q))
    ) {
      return this.walkCount(q, cap);
    }
    const { rows } = await (await this.tallyCount(q)).execute(this.planOnce);
    return Math.min(Math.max(Number(rows[0]?.n ?? 0), 0), cap + 1);
  }

  /** The statement `count` runs for a listing without time filters (see there). */
  private async tallyCount(q: EventQuery) {
    // `count` sums tallies only for a viewer from whom no note can be hidden.
    const untilNow = { ...q, upTo: undefined, clearOfPrivateGuest: true };
    const sum = sql<number>`coalesce(sum(e.n), 0)`.as('n');
    // scope=all: each member project on its own, as its walks (with its own confidentiality).
    const parts = (await this.parts(untilNow, undefined)) ?? [untilNow];
    const terms = [];
    for (const part of parts) {
      terms.push(sql` + (${this.base(part, 'tallies').select(sum)})`);
      if (!this.mayHide(part)) continue;
      terms.push(sql` - (${this.base(part, 'hidden').select(sum)})`);
      if (part.viewer) terms.push(sql` + (${this.base(part, 'own').select(sum)})`);
    }
    if (q.upTo !== undefined) {
      const w: Walk = {
        lower: { id: q.upTo, inclusive: false },
        descending: false,
        limit: ABOVE_HEAD_LIMIT,
        idsOnly: true,
        unordered: true,
      };
      // A user's few newest events: one joined walk is exact, and choosing arms (`authorParts`)
      // would cost its own statements for no gain.
      const above =
        untilNow.source.kind === 'author'
          ? this.single(untilNow, w)
          : await this.walk(untilNow, w, undefined);
      if (above) terms.push(sql` - (SELECT count(*) FROM (${above}) AS above)`);
    }
    return sql<{ n: number | string }>`${sql.raw(PLAN_ONCE)}SELECT 0${sql.join(terms, sql``)} AS n`;
  }

  /** The same count by walking up to `cap + 1` of the listing's events (time filters, tests). */
  async walkCount(q: EventQuery, cap: number): Promise<number> {
    const inner = await this.walk(
      q,
      { descending: true, limit: cap + 1, idsOnly: true, unordered: true },
      undefined,
    );
    if (!inner) return 0;
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
    const rows = await this.base(await this.judged(q))
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
    const bound = fromId === null ? undefined : { id: fromId, inclusive: true };
    const query = await this.walk(
      q,
      {
        descending: !asc,
        ...(bound ? (asc ? { lower: bound } : { upper: bound }) : {}),
        limit: 1,
        offset: skip,
        idsOnly: true,
      },
      undefined,
    );
    const row = await query?.executeTakeFirst();
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
    const query = await this.walk(q, walkOf(q, window, fromId), undefined);
    if (!query) return [];
    const rows = await query.execute();
    return window.kind === 'keyset' && window.reverse ? rows.reverse() : rows;
  }

  /**
   * The listing's events with ids above `afterId` (up to the query's `upTo`), oldest first, at most
   * `limit`: how a cached listing is brought forward over the events appended since. `projects`
   * (scope=all): walk only these member projects, the others having no events above `afterId`.
   */
  async since(
    q: EventQuery,
    afterId: number,
    limit: number,
    projects?: readonly number[],
  ): Promise<EventRow[]> {
    const query = await this.walk(
      q,
      { lower: { id: afterId, inclusive: false }, descending: false, limit },
      projects,
    );
    return query ? query.execute() : [];
  }

  /**
   * The database's plan for a listing query (EXPLAIN QUERY PLAN / EXPLAIN), one line per step: the
   * test that pins index use reads it. PostgreSQL plans with sequential scans disabled, so a scan
   * shows only where no index can serve the query.
   */
  async explain(
    q: EventQuery,
    what:
      | { kind: 'count' }
      | { kind: 'tallies' }
      | { kind: 'list'; window: EventWindow; fromId?: number | null },
  ): Promise<string[]> {
    // `count`: the walk a count with time filters makes; `tallies`: the sum every other count runs.
    const query =
      what.kind === 'tallies'
        ? await this.tallyCount(q)
        : what.kind === 'count'
          ? await this.walk(q, { descending: true, limit: 10_001, idsOnly: true, unordered: true })
          : await this.walk(q, walkOf(q, what.window, what.fromId ?? null));
    if (!query) return [];
    const compiled = query.compile(this.db);
    return this.db.connection().execute(async (conn) => {
      if (this.dialect === 'postgres') {
        await sql`SET enable_seqscan = off`.execute(conn);
        try {
          const plan = await conn.executeQuery<{ 'QUERY PLAN': string }>({
            ...compiled,
            sql: `EXPLAIN ${compiled.sql}`,
          });
          return plan.rows.map((r) => r['QUERY PLAN']);
        } finally {
          await sql`RESET enable_seqscan`.execute(conn);
        }
      }
      const plan = await conn.executeQuery<{ detail: string }>({
        ...compiled,
        sql: `EXPLAIN QUERY PLAN ${compiled.sql}`,
      });
      return plan.rows.map((r) => r.detail);
    });
  }

  /**
   * Appends one event (and its push payload) and returns its row. Call it inside the transaction
   * that makes the change the event records.
   */
  async append(event: NewEvent, push?: Omit<PushPayloadRow, 'event_id'>): Promise<EventRow> {
    if (this.dialect === 'postgres' && !this.db.isTransaction) {
      // Ids come from a sequence, drawn at insert and visible at commit: two writers could make
      // id 11 visible before id 10. The events trigger (migration 010) takes one transaction lock
      // before the id is drawn and holds it until commit, so ids become visible in order and a
      // reader's head (the highest visible id) has everything below it settled. Outside a
      // transaction that lock would end with the statement, so the append runs in one of its own.
      return this.db
        .transaction()
        .execute((trx) => new EventStore(trx, this.dialect).append(event, push));
    }
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

/** The walk behind a window of a listing in its sort order. */
function walkOf(q: EventQuery, window: EventWindow, fromId: number | null): Walk {
  const asc = q.filter.sort === 'asc';
  if (window.kind === 'offset') {
    const bound = fromId === null ? undefined : { id: fromId, inclusive: true };
    return {
      descending: !asc,
      ...(bound ? (asc ? { lower: bound } : { upper: bound }) : {}),
      limit: window.limit,
      offset: window.offset,
    };
  }
  // Keyset: afterId is beyond in sort order, beforeId before it; reverse walks from the far end.
  const w: Walk = { descending: window.reverse ? asc : !asc, limit: window.limit };
  const beyond = (id: number) => ({ id, inclusive: false });
  if (window.afterId !== undefined) {
    if (asc) w.lower = beyond(window.afterId);
    else w.upper = beyond(window.afterId);
  }
  if (window.beforeId !== undefined) {
    if (asc) w.upper = beyond(window.beforeId);
    else w.lower = beyond(window.beforeId);
  }
  return w;
}
