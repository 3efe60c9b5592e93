/**
 * GitLab's REST entities for what the writes return (API::Entities::Issue, MergeRequest,
 * Milestone, Note, Member, Project), key order included, enough that python-gitlab and gitbeaker
 * objects work. Fields pulsegate has no data for (labels, assignees, time tracking, pipelines)
 * carry GitLab's values for "none".
 */
import type { Approvals, MergeRequestDetail } from '../services/content/merge-requests.js';
import type { IssueDetail } from '../services/content/issues.js';
import type { ProjectDetail } from '../services/content/projects.js';
import type { MemberView, MilestoneView, ProjectView, UserView } from '../services/views.js';
import { type ProjectLinks, repositorySshUrl } from '../domain/links.js';
import type { NamespaceView } from '../services/navigation/navigation.js';
import { iso, presentUserBasic, projectWebUrl } from './present.js';
import { presentNamespace } from './navigation-entities.js';

/** The notes API answers the same entity an event's `note` carries. */
export { presentNote as presentNoteEntity } from './present.js';

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
const userOrNull = (user: UserView | null, externalUrl: string) =>
  user ? presentUserBasic(user, externalUrl) : null;

const TIME_STATS = {
  time_estimate: 0,
  total_time_spent: 0,
  human_time_estimate: null,
  human_total_time_spent: null,
};
const TASKS = { count: 0, completed_count: 0 };

export function presentMilestone(
  milestone: MilestoneView,
  project: ProjectView,
  externalUrl: string,
  today: string,
) {
  return {
    id: milestone.id,
    iid: milestone.iid,
    project_id: milestone.projectId,
    title: milestone.title,
    description: milestone.description,
    state: milestone.state,
    created_at: iso(milestone.createdAt),
    updated_at: iso(milestone.updatedAt),
    due_date: milestone.dueDate,
    start_date: milestone.startDate,
    expired: milestone.dueDate !== null && milestone.dueDate < today,
    web_url: `${projectWebUrl(externalUrl, project)}/-/milestones/${milestone.iid}`,
  };
}

function references(project: ProjectView, sigil: '#' | '!', iid: number) {
  return {
    short: `${sigil}${iid}`,
    relative: `${sigil}${iid}`,
    full: `${project.fullPath}${sigil}${iid}`,
  };
}

export function presentIssue(detail: IssueDetail, externalUrl: string, today: string) {
  const { issue, project } = detail;
  const projectUrl = projectWebUrl(externalUrl, project);
  const apiProject = `${externalUrl}/api/v4/projects/${project.id}`;
  return {
    id: issue.id,
    iid: issue.iid,
    project_id: issue.projectId,
    title: issue.title,
    description: issue.description,
    state: issue.state,
    created_at: iso(issue.createdAt),
    updated_at: iso(issue.updatedAt),
    closed_at: isoOrNull(issue.closedAt),
    closed_by: userOrNull(detail.closedBy, externalUrl),
    labels: [],
    milestone: detail.milestone
      ? presentMilestone(detail.milestone, project, externalUrl, today)
      : null,
    assignees: [],
    author: userOrNull(detail.author, externalUrl),
    type: 'ISSUE',
    assignee: null,
    user_notes_count: detail.userNotesCount,
    merge_requests_count: 0,
    upvotes: 0,
    downvotes: 0,
    due_date: null,
    confidential: issue.confidential,
    discussion_locked: null,
    issue_type: 'issue',
    web_url: `${projectUrl}/-/issues/${issue.iid}`,
    time_stats: TIME_STATS,
    task_completion_status: TASKS,
    has_tasks: false,
    _links: {
      self: `${apiProject}/issues/${issue.iid}`,
      notes: `${apiProject}/issues/${issue.iid}/notes`,
      award_emoji: `${apiProject}/issues/${issue.iid}/award_emoji`,
      project: apiProject,
      closed_as_duplicate_of: null,
    },
    references: references(project, '#', issue.iid),
    severity: 'UNKNOWN',
    moved_to_id: null,
    service_desk_reply_to: null,
  };
}

/** The fields every merge request entity starts with, in GitLab's order. */
function mergeRequestHead(mr: MergeRequestDetail['mergeRequest']) {
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.projectId,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: iso(mr.createdAt),
    updated_at: iso(mr.updatedAt),
  };
}

export function presentMergeRequest(
  detail: MergeRequestDetail,
  externalUrl: string,
  today: string,
) {
  const { mergeRequest: mr, project } = detail;
  const merged = mr.state === 'merged';
  const open = mr.state === 'opened';
  return {
    ...mergeRequestHead(mr),
    merged_by: userOrNull(detail.mergedBy, externalUrl),
    merge_user: userOrNull(detail.mergedBy, externalUrl),
    merged_at: isoOrNull(mr.mergedAt),
    closed_by: userOrNull(detail.closedBy, externalUrl),
    closed_at: isoOrNull(mr.closedAt),
    target_branch: mr.targetBranch,
    source_branch: mr.sourceBranch,
    user_notes_count: detail.userNotesCount,
    upvotes: 0,
    downvotes: 0,
    author: userOrNull(detail.author, externalUrl),
    assignees: [],
    assignee: null,
    reviewers: [],
    source_project_id: mr.projectId,
    target_project_id: mr.projectId,
    labels: [],
    draft: false,
    work_in_progress: false,
    milestone: detail.milestone
      ? presentMilestone(detail.milestone, project, externalUrl, today)
      : null,
    merge_when_pipeline_succeeds: false,
    merge_status: open ? 'can_be_merged' : 'unchecked',
    detailed_merge_status: open ? 'mergeable' : merged ? 'merged' : 'not_open',
    sha: null,
    merge_commit_sha: null,
    squash_commit_sha: null,
    discussion_locked: null,
    should_remove_source_branch: null,
    force_remove_source_branch: false,
    prepared_at: iso(mr.createdAt),
    reference: `!${mr.iid}`,
    references: references(project, '!', mr.iid),
    web_url: `${projectWebUrl(externalUrl, project)}/-/merge_requests/${mr.iid}`,
    time_stats: TIME_STATS,
    squash: false,
    squash_on_merge: false,
    task_completion_status: TASKS,
    has_conflicts: false,
    blocking_discussions_resolved: true,
  };
}

/** `POST …/approve` and `GET …/approvals` (GitLab CE's approval state). */
export function presentApprovals(state: Approvals, externalUrl: string) {
  const mr = state.detail.mergeRequest;
  return {
    ...mergeRequestHead(mr),
    merge_status: mr.state === 'opened' ? 'can_be_merged' : 'unchecked',
    approved: state.approvedBy.length > 0,
    approvals_required: 0,
    approvals_left: 0,
    require_password_to_approve: false,
    approved_by: state.approvedBy.map((a) => ({ user: presentUserBasic(a.user, externalUrl) })),
    suggested_approvers: [],
    approvers: [],
    approver_groups: [],
    user_has_approved: state.userHasApproved,
    user_can_approve: state.userCanApprove,
    approval_rules_left: [],
    has_approval_rules: false,
    merge_request_approvers_available: false,
    multiple_approval_rules_available: false,
    invalid_approvers_rules: [],
  };
}

export function presentMember(member: MemberView, externalUrl: string) {
  return {
    ...presentUserBasic(member.user, externalUrl),
    access_level: member.accessLevel,
    created_at: isoOrNull(member.createdAt),
    created_by: userOrNull(member.createdBy, externalUrl),
    expires_at: member.expiresAt,
    membership_state: 'active',
  };
}

/** The project entity's `namespace`: from its namespace when known, else from its path alone. */
function projectNamespace(project: ProjectView, links: ProjectLinks, namespace?: NamespaceView) {
  if (namespace) return presentNamespace(namespace, links.externalUrl);
  const name = project.namespace.split('/').pop();
  return {
    id: null,
    name,
    path: name,
    kind: project.namespace.includes('/') ? 'group' : 'user',
    full_path: project.namespace,
    parent_id: null,
    avatar_url: null,
    web_url: `${links.externalUrl}/${project.namespace}`,
  };
}

/** API::Entities::BasicProjectDetails: `simple=true`, and what anonymous lists show. */
export function presentProjectBasic(
  project: ProjectView,
  starCount: number,
  links: ProjectLinks,
  namespace?: NamespaceView,
) {
  const web = projectWebUrl(links.externalUrl, project);
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: `${project.namespace.split('/').join(' / ')} / ${project.name}`,
    path: project.path,
    path_with_namespace: project.fullPath,
    created_at: iso(project.createdAt),
    default_branch: project.defaultBranch,
    tag_list: [],
    topics: [],
    ssh_url_to_repo: repositorySshUrl(links.ssh, project),
    http_url_to_repo: `${web}.git`,
    web_url: web,
    readme_url: null,
    forks_count: 0,
    avatar_url: null,
    star_count: starCount,
    last_activity_at: iso(project.lastActivityAt),
    namespace: projectNamespace(project, links, namespace),
  };
}

/**
 * API::Entities::Project for its readers (permissions included for members). `_links` name only
 * routes pulsegate serves: labels answer (none exist), repository branches do not (pulsegate
 * keeps no repository contents).
 */
export function presentProject(
  detail: ProjectDetail,
  links: ProjectLinks,
  namespace?: NamespaceView,
) {
  const { project, accessLevel } = detail;
  const api = `${links.externalUrl}/api/v4/projects/${project.id}`;
  return {
    ...presentProjectBasic(project, detail.starCount, links, namespace),
    _links: {
      self: api,
      issues: `${api}/issues`,
      merge_requests: `${api}/merge_requests`,
      labels: `${api}/labels`,
      events: `${api}/events`,
      members: `${api}/members`,
    },
    visibility: project.visibility,
    issues_enabled: true,
    merge_requests_enabled: true,
    creator_id: project.creatorId,
    empty_repo: true,
    archived: false,
    permissions: {
      project_access:
        accessLevel === null ? null : { access_level: accessLevel, notification_level: 3 },
      group_access: null,
    },
  };
}
