/**
 * Issues and merge requests: the two tracked kinds share iids per project, state, description and
 * close/update times. One store per table, on the queries every numbered kind shares
 * (numbered-rows.ts).
 */
import { type Kysely, expressionBuilder } from 'kysely';
import type { Dialect } from './database.js';
import { type NumberedListQuery, NumberedRows } from './numbered-rows.js';
import { insertOnce } from './rows.js';
import type { Database, MergeRequestRow } from './schema.js';

export interface TrackedListQuery extends NumberedListQuery {
  /** Confidential issues are left out unless the reader may see them (or wrote them). */
  confidentialVisibleTo?: { userId: number | null; all: boolean } | undefined;
  sort: 'asc' | 'desc';
}

/** What issues and merge requests add to the shared queries. */
class TrackedRows<T extends 'issues' | 'merge_requests'> extends NumberedRows<T> {
  private readonly tracked: 'issues' | 'merge_requests';

  constructor(db: Kysely<Database>, dialect: Dialect, table: T) {
    super(db, dialect, table);
    this.tracked = table;
  }

  byIid(projectId: number, iid: number, lock = false) {
    return this.inProjectBy('iid', projectId, iid, lock);
  }

  /** Rows referring to a milestone forget it when it is deleted (GitLab nullifies). */
  async clearMilestone(milestoneId: number): Promise<void> {
    await this.db
      .updateTable(this.tracked)
      .set({ milestone_id: null })
      .where('milestone_id', '=', milestoneId)
      .execute();
  }
}

export class IssueStore extends TrackedRows<'issues'> {
  constructor(db: Kysely<Database>, dialect: Dialect) {
    super(db, dialect, 'issues');
  }

  protected override filtered(q: TrackedListQuery) {
    const seen = q.confidentialVisibleTo;
    if (!seen || seen.all) return super.filtered(q);
    const eb = expressionBuilder<Database, 'issues'>();
    const userId = seen.userId;
    const visible =
      userId === null
        ? eb('confidential', '=', 0)
        : eb.or([eb('confidential', '=', 0), eb('author_id', '=', userId)]);
    return super.filtered(q).where(visible);
  }
}

export class MergeRequestStore extends TrackedRows<'merge_requests'> {
  constructor(db: Kysely<Database>, dialect: Dialect) {
    super(db, dialect, 'merge_requests');
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
    return this.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('source_branch', '=', source)
      .where('target_branch', '=', target)
      .where('state', '=', 'opened')
      .$if(except !== null, (query) => query.where('id', '!=', except as number))
      .executeTakeFirst();
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
  approve(mergeRequestId: number, userId: number, now: number): Promise<boolean> {
    const row = { merge_request_id: mergeRequestId, user_id: userId, created_at: now };
    return insertOnce(this.db, 'merge_request_approvals', row, ['merge_request_id', 'user_id']);
  }
}
