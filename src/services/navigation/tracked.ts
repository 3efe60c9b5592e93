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
  async issues(
    p: TrackedListParams,
    viewer: Viewer | null,
    slice: Slice,
  ): Promise<Listed<IssueDetail>> {
    const query = this.trackedQuery(p, viewer, slice);
    if (!query) return { items: [], total: 0 };
    const [rows, total] = await Promise.all([
      this.store.navigation.tracked.issues(query),
      this.store.navigation.tracked.countIssues(query),
    ]);
    const { users, projects, milestones, counts } = await this.trackedContext(rows, 'Issue');
    const items = rows.map((row) => ({
      issue: issueView(row),
      project: projects.get(row.project_id)!,
      author: users.get(row.author_id) ?? null,
      closedBy: row.closed_by_id === null ? null : (users.get(row.closed_by_id) ?? null),
      milestone: row.milestone_id === null ? null : (milestones.get(row.milestone_id) ?? null),
      userNotesCount: counts.get(row.id) ?? 0,
    }));
    return { items, total };
  }

  /** `GET /merge_requests`: across every project the viewer can read them in. */
  async mergeRequests(
    p: TrackedListParams,
    viewer: Viewer | null,
    slice: Slice,
  ): Promise<Listed<MergeRequestDetail>> {
    const query = this.trackedQuery(p, viewer, slice);
    if (!query) return { items: [], total: 0 };
    const [rows, total] = await Promise.all([
      this.store.navigation.tracked.mergeRequests(query),
      this.store.navigation.tracked.countMergeRequests(query),
    ]);
    const { users, projects, milestones, counts } = await this.trackedContext(rows, 'MergeRequest');
    const user = (id: number | null) => (id === null ? null : (users.get(id) ?? null));
    const items = rows.map((row) => ({
      mergeRequest: mergeRequestView(row),
      project: projects.get(row.project_id)!,
      author: user(row.author_id),
      closedBy: user(row.closed_by_id),
      mergedBy: user(row.merged_by_id),
      milestone: row.milestone_id === null ? null : (milestones.get(row.milestone_id) ?? null),
      userNotesCount: counts.get(row.id) ?? 0,
    }));
    return { items, total };
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
    return {
      users: new Map(users.map((u) => [u.id, userView(u)])),
      projects: new Map(projects.map((p) => [p.id, projectView(p)])),
      milestones: new Map(milestones.map((m) => [m.id, milestoneView(m)])),
      counts,
    };
  }
}
