/**
 * Issues and merge requests across projects, each kind under its own visibility: confidential
 * issues for Reporters and their authors, a private project's merge requests for Reporters.
 */
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { MERGE_REQUEST_PRIVATE_MIN_ACCESS } from '../domain/navigation.js';
import { CONFIDENTIAL_MIN_ACCESS } from '../domain/visibility.js';
import type { Dialect } from './database.js';
import { type ProjectsEb, contains, countRows, readableProject, textOrder } from './listing-sql.js';
import type { TrackedAcrossQuery } from './navigation.js';
import type { Database, IssueRow, MergeRequestRow } from './schema.js';

export class TrackedListing {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  private order(q: TrackedAcrossQuery) {
    return q.orderBy === 'title' ? textOrder(this.dialect, 't.title') : sql.ref(`t.${q.orderBy}`);
  }

  private trackedAcross<T extends 'issues' | 'merge_requests'>(table: T, q: TrackedAcrossQuery) {
    const viewer = q.viewer;
    let query = this.db
      .selectFrom(`${table} as t` as 'issues as t')
      .innerJoin('projects as p', 'p.id', 't.project_id')
      .where((eb) => readableProject(eb as unknown as ProjectsEb, viewer));
    if (viewer && !viewer.admin) {
      const level = (eb: ExpressionBuilder<Database & { p: Database['projects'] }, 'p'>) =>
        eb
          .selectFrom('project_members as lm')
          .select('lm.access_level')
          .whereRef('lm.project_id', '=', 'p.id')
          .where('lm.user_id', '=', viewer.userId);
      if (table === 'issues') {
        // Confidential issues: Reporter and above, and the issue's author.
        query = query.where((eb) =>
          eb.or([
            eb('t.confidential', '=', 0),
            eb('t.author_id', '=', viewer.userId),
            eb(level(eb as never), '>=', CONFIDENTIAL_MIN_ACCESS),
          ]),
        );
      } else {
        // Merge requests of a private project: Reporter and above.
        query = query.where((eb) =>
          eb.or([
            eb('p.visibility', '<>', 'private'),
            eb(level(eb as never), '>=', MERGE_REQUEST_PRIVATE_MIN_ACCESS),
          ]),
        );
      }
    } else if (!viewer && table === 'issues') {
      query = query.where('t.confidential', '=', 0);
    }
    if (q.authorId !== undefined) query = query.where('t.author_id', '=', q.authorId);
    if (q.state) query = query.where('t.state', '=', q.state);
    if (q.search) {
      const text = q.search;
      query = query.where((eb) =>
        eb.or([contains('t.title', text), contains('t.description', text)]),
      );
    }
    return query;
  }

  async issues(q: TrackedAcrossQuery): Promise<IssueRow[]> {
    return (await this.page('issues', q)) as IssueRow[];
  }

  countIssues(q: TrackedAcrossQuery): Promise<number> {
    return this.count('issues', q);
  }

  async mergeRequests(q: TrackedAcrossQuery): Promise<MergeRequestRow[]> {
    return (await this.page('merge_requests', q)) as unknown as MergeRequestRow[];
  }

  countMergeRequests(q: TrackedAcrossQuery): Promise<number> {
    return this.count('merge_requests', q);
  }

  /** One offset page of `table`'s rows the query finds, in its order (ties by id). */
  private page(table: 'issues' | 'merge_requests', q: TrackedAcrossQuery) {
    return this.trackedAcross(table, q)
      .selectAll('t')
      .orderBy(this.order(q), q.sort)
      .orderBy('t.id', q.sort)
      .limit(q.limit)
      .offset(q.offset)
      .execute();
  }

  /** How many of `table`'s rows the query finds (GitLab's total). */
  private count(table: 'issues' | 'merge_requests', q: TrackedAcrossQuery): Promise<number> {
    return countRows(this.trackedAcross(table, q));
  }
}
