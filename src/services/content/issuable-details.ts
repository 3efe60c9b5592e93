/**
 * Issues and merge requests as their details: the row's view with the project, users and
 * milestone it names and its user-note count, for a batch at a time (one query per kind). A
 * project's listings and the lists across projects present them alike.
 */
import type { IssueRow, MergeRequestRow, ProjectRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { issueView, mergeRequestView, milestoneView, projectView, userView } from '../views.js';
import type { IssueDetail } from './issues.js';
import type { MergeRequestDetail } from './merge-requests.js';

/** `project`: the one they all belong to, when the caller has it; else each row's is read. */
export const issueDetails = detailsOf('Issue', (row: IssueRow, parts): IssueDetail => ({
  issue: issueView(row),
  ...parts.shared(row),
}));

/** `project`: the one they all belong to, when the caller has it; else each row's is read. */
export const mergeRequestDetails = detailsOf(
  'MergeRequest',
  (row: MergeRequestRow, parts): MergeRequestDetail => ({
    mergeRequest: mergeRequestView(row),
    ...parts.shared(row),
    mergedBy: parts.user(row.merged_by_id),
  }),
);

type Parts = Awaited<ReturnType<typeof relatedParts>>;

/** The details of a batch of one kind: what the rows name is read once, then each row's detail. */
function detailsOf<R extends IssueRow | MergeRequestRow, D>(
  type: 'Issue' | 'MergeRequest',
  detail: (row: R, parts: Parts) => D,
) {
  return async (store: Store, rows: R[], project: ProjectRow | null): Promise<D[]> => {
    const parts = await relatedParts(store, type, rows, project);
    return rows.map((row) => detail(row, parts));
  };
}

async function relatedParts(
  store: Store,
  type: 'Issue' | 'MergeRequest',
  rows: (IssueRow | MergeRequestRow)[],
  project: ProjectRow | null,
) {
  const userIds = new Set<number>();
  for (const row of rows) {
    userIds.add(row.author_id);
    if (row.closed_by_id !== null) userIds.add(row.closed_by_id);
    if ('merged_by_id' in row && row.merged_by_id !== null) userIds.add(row.merged_by_id);
  }
  const [users, projects, milestones, counts] = await Promise.all([
    store.users.byIds([...userIds]),
    project ? [project] : store.projects.byIds([...new Set(rows.map((r) => r.project_id))]),
    store.content.milestones(
      rows.map((r) => r.milestone_id).filter((id): id is number => id !== null),
    ),
    store.notes.userNoteCounts(
      type,
      rows.map((r) => r.id),
    ),
  ]);
  const usersById = new Map(users.map((u) => [u.id, userView(u)]));
  const projectsById = new Map(projects.map((p) => [p.id, projectView(p)]));
  const milestonesById = new Map(milestones.map((m) => [m.id, milestoneView(m)]));
  const user = (id: number | null) => (id === null ? null : (usersById.get(id) ?? null));
  return {
    user,
    /** What an issue's detail and a merge request's both show. */
    shared: (row: IssueRow | MergeRequestRow) => ({
      project: projectsById.get(row.project_id)!,
      author: user(row.author_id),
      closedBy: user(row.closed_by_id),
      milestone: row.milestone_id === null ? null : (milestonesById.get(row.milestone_id) ?? null),
      userNotesCount: counts.get(row.id) ?? 0,
    }),
  };
}
