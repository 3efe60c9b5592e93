/** Issues and merge requests across every project the viewer can read them in. */
import type { Viewer } from '../../domain/visibility.js';
import type { TrackedAcrossQuery } from '../../store/navigation.js';
import type { IssueRow, MergeRequestRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { IssueDetail } from '../content/issues.js';
import type { MergeRequestDetail } from '../content/merge-requests.js';
import { issueView, mergeRequestView, milestoneView, projectView, userView } from '../views.js';
import type { Listed, Slice, TrackedListParams } from './lists.js';

export class TrackedAcross {
  constructor(private readonly store: Store) {}

  /** `GET /issues`: across every project the viewer can read, confidential ones as GitLab shows them. */
  issues(p: TrackedListParams, viewer: Viewer | null, slice: Slice): Promise<Listed<IssueDetail>> {
    const { tracked } = this.store.navigation;
    return this.listed(
      p,
      viewer,
      slice,
      'Issue',
      (query) => Promise.all([tracked.issues(query), tracked.countIssues(query)]),
      (row, { user, project, milestone, notes }) => ({
        issue: issueView(row),
        project: project(row),
        author: user(row.author_id),
        closedBy: user(row.closed_by_id),
        milestone: milestone(row),
        userNotesCount: notes(row),
      }),
    );
  }

  /** `GET /merge_requests`: across every project the viewer can read them in. */
  mergeRequests(
    p: TrackedListParams,
    viewer: Viewer | null,
    slice: Slice,
  ): Promise<Listed<MergeRequestDetail>> {
    const { tracked } = this.store.navigation;
    return this.listed(
      p,
      viewer,
      slice,
      'MergeRequest',
      (query) => Promise.all([tracked.mergeRequests(query), tracked.countMergeRequests(query)]),
      (row, { user, project, milestone, notes }) => ({
        mergeRequest: mergeRequestView(row),
        project: project(row),
        author: user(row.author_id),
        closedBy: user(row.closed_by_id),
        mergedBy: user(row.merged_by_id),
        milestone: milestone(row),
        userNotesCount: notes(row),
      }),
    );
  }

  /** A page of one kind: its rows and total, each row with the users, project and milestone it names. */
  private async listed<R extends IssueRow | MergeRequestRow, T>(
    p: TrackedListParams,
    viewer: Viewer | null,
    slice: Slice,
    type: 'Issue' | 'MergeRequest',
    read: (query: TrackedAcrossQuery) => Promise<[R[], number]>,
    present: (row: R, context: Awaited<ReturnType<TrackedAcross['trackedContext']>>) => T,
  ): Promise<Listed<T>> {
    const query = this.trackedQuery(p, viewer, slice);
    if (!query) return { items: [], total: 0 };
    const [rows, total] = await read(query);
    const context = await this.trackedContext(rows, type);
    return { items: rows.map((row) => present(row, context)), total };
  }

  /**
   * The query of a cross-project list, or null when the scope names nothing: pulsegate keeps no
   * assignees, so `assigned_to_me` is always empty.
   */
  private trackedQuery(
    p: TrackedListParams,
    viewer: Viewer | null,
    slice: Slice,
  ): TrackedAcrossQuery | null {
    if (p.scope === 'assigned_to_me') return null;
    let authorId = p.authorId;
    if (p.scope === 'created_by_me') {
      if (!viewer) return null;
      if (authorId !== undefined && authorId !== viewer.userId) return null;
      authorId = viewer.userId;
    }
    return {
      viewer,
      authorId,
      state: p.state,
      search: p.search,
      orderBy: p.orderBy,
      sort: p.sort,
      ...slice,
    };
  }

  private async trackedContext(
    rows: (IssueRow | MergeRequestRow)[],
    type: 'Issue' | 'MergeRequest',
  ) {
    const userIds = new Set<number>();
    for (const row of rows) {
      userIds.add(row.author_id);
      if (row.closed_by_id !== null) userIds.add(row.closed_by_id);
      if ('merged_by_id' in row && row.merged_by_id !== null) userIds.add(row.merged_by_id);
    }
    const [users, projects, milestones, counts] = await Promise.all([
      this.store.users.byIds([...userIds]),
      this.store.projects.byIds([...new Set(rows.map((r) => r.project_id))]),
      this.store.content.milestones(
        rows.map((r) => r.milestone_id).filter((id): id is number => id !== null),
      ),
      this.store.notes.userNoteCounts(
        type,
        rows.map((r) => r.id),
      ),
    ]);
    const usersById = new Map(users.map((u) => [u.id, userView(u)]));
    const projectsById = new Map(projects.map((p) => [p.id, projectView(p)]));
    const milestonesById = new Map(milestones.map((m) => [m.id, milestoneView(m)]));
    return {
      user: (id: number | null) => (id === null ? null : (usersById.get(id) ?? null)),
      project: (row: IssueRow | MergeRequestRow) => projectsById.get(row.project_id)!,
      milestone: (row: IssueRow | MergeRequestRow) =>
        row.milestone_id === null ? null : (milestonesById.get(row.milestone_id) ?? null),
      notes: (row: IssueRow | MergeRequestRow) => counts.get(row.id) ?? 0,
    };
  }
}
