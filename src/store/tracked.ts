/**
 * Issues and merge requests: the two tracked kinds share iids per project, state, description and
 * close/update times. One store per table, sharing the queries that are the same.
 */
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Dialect } from './database.js';
import { nextIid } from './iids.js';
import { countRows } from './listing-sql.js';
import type {
  Database,
  IssueRow,
  IssuesTable,
  MergeRequestRow,
  MergeRequestsTable,
} from './schema.js';

export interface TrackedListQuery {
  projectId: number;
  state?: string | undefined;
  iids?: number[] | undefined;
  /** Confidential issues are left out unless the reader may see them (or wrote them). */
  confidentialVisibleTo?: { userId: number | null; all: boolean } | undefined;
  sort: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export class IssueStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async create(values: Omit<Insertable<IssuesTable>, 'iid'>): Promise<IssueRow> {
    const iid = await nextIid(this.db, this.dialect, 'issues', values.project_id);
    return this.db
      .insertInto('issues')
      .values({ ...values, iid })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * `lock`: a write that decides by the row's state takes its row lock on PostgreSQL (SQLite
   * writers already run one at a time), so a parallel write waits and then sees what this one did.
   */
  byIid(projectId: number, iid: number, lock = false): Promise<IssueRow | undefined> {
    let query = this.db
      .selectFrom('issues')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('iid', '=', iid);
    if (lock && this.dialect === 'postgres') query = query.forUpdate();
    return query.executeTakeFirst();
  }

  byId(id: number): Promise<IssueRow | undefined> {
    return this.db.selectFrom('issues').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async update(id: number, patch: Updateable<IssuesTable>): Promise<IssueRow> {
    return this.db
      .updateTable('issues')
      .set(patch)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Changes the row only if it is still in `state`: undefined when another write moved it. */
  updateInState(
    id: number,
    state: string,
    patch: Updateable<IssuesTable>,
  ): Promise<IssueRow | undefined> {
    return this.db
      .updateTable('issues')
      .set(patch)
      .where('id', '=', id)
      .where('state', '=', state)
      .returningAll()
      .executeTakeFirst();
  }

  private filtered(q: TrackedListQuery) {
    let query = this.db.selectFrom('issues').where('project_id', '=', q.projectId);
    if (q.state) query = query.where('state', '=', q.state);
    if (q.iids) query = query.where('iid', 'in', q.iids.length > 0 ? q.iids : [-1]);
    const seen = q.confidentialVisibleTo;
    if (seen && !seen.all) {
      const userId = seen.userId;
      query = query.where((eb) =>
        userId === null
          ? eb('confidential', '=', 0)
          : eb.or([eb('confidential', '=', 0), eb('author_id', '=', userId)]),
      );
    }
    return query;
  }

  list(q: TrackedListQuery): Promise<IssueRow[]> {
    return this.filtered(q)
      .selectAll()
      .orderBy('id', q.sort)
      .limit(q.limit)
      .offset(q.offset)
      .execute();
  }

  count(q: TrackedListQuery): Promise<number> {
    return countRows(this.filtered(q));
  }

  /** Issues referring to a milestone forget it when it is deleted (GitLab nullifies). */
  async clearMilestone(milestoneId: number): Promise<void> {
    await this.db
      .updateTable('issues')
      .set({ milestone_id: null })
      .where('milestone_id', '=', milestoneId)
      .execute();
  }
}

export class MergeRequestStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async create(values: Omit<Insertable<MergeRequestsTable>, 'iid'>): Promise<MergeRequestRow> {
    const iid = await nextIid(this.db, this.dialect, 'merge_requests', values.project_id);
    return this.db
      .insertInto('merge_requests')
      .values({ ...values, iid })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * `lock`: a write that decides by the row's state takes its row lock on PostgreSQL (SQLite
   * writers already run one at a time), so a parallel write waits and then sees what this one did.
   */
  byIid(projectId: number, iid: number, lock = false): Promise<MergeRequestRow | undefined> {
    let query = this.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('iid', '=', iid);
    if (lock && this.dialect === 'postgres') query = query.forUpdate();
    return query.executeTakeFirst();
  }

  byId(id: number): Promise<MergeRequestRow | undefined> {
    return this.db.selectFrom('merge_requests').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * An open merge request from `source` into `target` (GitLab allows one at a time, and so does a
   * unique index: migration 021), other than `except`.
   */
  openBetween(
    projectId: number,
    source: string,
    target: string,
    except: number | null = null,
  ): Promise<MergeRequestRow | undefined> {
    let query = this.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('source_branch', '=', source)
      .where('target_branch', '=', target)
      .where('state', '=', 'opened');
    if (except !== null) query = query.where('id', '!=', except);
    return query.executeTakeFirst();
  }

  async update(id: number, patch: Updateable<MergeRequestsTable>): Promise<MergeRequestRow> {
    return this.db
      .updateTable('merge_requests')
      .set(patch)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Changes the row only if it is still in `state`: undefined when another write moved it. */
  updateInState(
    id: number,
    state: string,
    patch: Updateable<MergeRequestsTable>,
  ): Promise<MergeRequestRow | undefined> {
    return this.db
      .updateTable('merge_requests')
      .set(patch)
      .where('id', '=', id)
      .where('state', '=', state)
      .returningAll()
      .executeTakeFirst();
  }

  private filtered(q: TrackedListQuery) {
    let query = this.db.selectFrom('merge_requests').where('project_id', '=', q.projectId);
    if (q.state) query = query.where('state', '=', q.state);
    if (q.iids) query = query.where('iid', 'in', q.iids.length > 0 ? q.iids : [-1]);
    return query;
  }

  list(q: TrackedListQuery): Promise<MergeRequestRow[]> {
    return this.filtered(q)
      .selectAll()
      .orderBy('id', q.sort)
      .limit(q.limit)
      .offset(q.offset)
      .execute();
  }

  count(q: TrackedListQuery): Promise<number> {
    return countRows(this.filtered(q));
  }

  async clearMilestone(milestoneId: number): Promise<void> {
    await this.db
      .updateTable('merge_requests')
      .set({ milestone_id: null })
      .where('milestone_id', '=', milestoneId)
      .execute();
  }

  approvers(mergeRequestId: number): Promise<{ user_id: number; created_at: number }[]> {
    return this.db
      .selectFrom('merge_request_approvals')
      .select(['user_id', 'created_at'])
      .where('merge_request_id', '=', mergeRequestId)
      .orderBy('created_at')
      .execute();
  }

  /** Records an approval; false when this user had already approved (a racing retry). */
  async approve(mergeRequestId: number, userId: number, now: number): Promise<boolean> {
    const result = await this.db
      .insertInto('merge_request_approvals')
      .values({ merge_request_id: mergeRequestId, user_id: userId, created_at: now })
      .onConflict((oc) => oc.columns(['merge_request_id', 'user_id']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
