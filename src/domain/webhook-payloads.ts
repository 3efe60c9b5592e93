/**
 * Webhook bodies in GitLab's format (doc/user/project/integrations/webhook_events.md), built from
 * plain values so that the outbox, the test trigger and the tests all make the same bytes. User
 * e-mail addresses are `[REDACTED]`, as GitLab sends them.
 */
import {
  type ProjectLinks,
  avatarUrl,
  projectWebUrl,
  qualifiedRef,
  repositorySshUrl,
} from './links.js';
import type { PushCommit } from './push-payload.js';
import { ACCESS_LEVELS, type RefType, type Visibility } from './vocabulary.js';

export interface HookUser {
  id: number;
  name: string;
  username: string;
  email: string;
  avatarUrl: string | null;
}

export interface HookProject {
  id: number;
  name: string;
  description: string;
  namespace: string;
  fullPath: string;
  visibility: Visibility;
  defaultBranch: string;
}

/** What issue and merge request bodies share. */
interface HookTracked {
  id: number;
  iid: number;
  projectId: number;
  title: string;
  description: string;
  authorId: number;
  state: string;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  milestoneId: number | null;
}

export interface HookIssue extends HookTracked {
  confidential: boolean;
}

export interface HookMergeRequest extends HookTracked {
  sourceBranch: string;
  targetBranch: string;
  mergedAt: number | null;
  mergedById: number | null;
}

export interface HookNote {
  id: number;
  body: string;
  authorId: number;
  noteableType: 'Issue' | 'MergeRequest';
  noteableId: number;
  system: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface HookPush {
  refType: RefType;
  ref: string;
  before: string | null;
  after: string | null;
  commitCount: number;
  commits: PushCommit[];
}

export type Payload = Record<string, unknown>;

const BLANK = '0'.repeat(40);
const VISIBILITY_LEVEL: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };
const ACCESS_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(ACCESS_LEVELS).map(([name, level]) => [
    level,
    name[0]!.toUpperCase() + name.slice(1),
  ]),
);

/** `2026-01-15T12:00:00Z`: issue and merge request times. */
function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `2026-01-15 12:00:00 UTC`: note and push times as GitLab's examples show them. */
function utcTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' UTC');
}

export function hookUser(user: HookUser): Payload {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    avatar_url: avatarUrl(user),
    email: '[REDACTED]',
  };
}

export function hookProject(links: ProjectLinks, project: HookProject): Payload {
  const web = projectWebUrl(links.externalUrl, project);
  const ssh = repositorySshUrl(links.ssh, project);
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    web_url: web,
    avatar_url: null,
    git_ssh_url: ssh,
    git_http_url: `${web}.git`,
    namespace: project.namespace,
    visibility_level: VISIBILITY_LEVEL[project.visibility],
    path_with_namespace: project.fullPath,
    default_branch: project.defaultBranch,
    ci_config_path: null,
    homepage: web,
    url: ssh,
    ssh_url: ssh,
    http_url: `${web}.git`,
  };
}

function repository(links: ProjectLinks, project: HookProject): Payload {
  const web = projectWebUrl(links.externalUrl, project);
  return {
    name: project.name,
    url: repositorySshUrl(links.ssh, project),
    description: project.description,
    homepage: web,
  };
}

/** `open`, `close`, `reopen`, `update`, `merge`, `approved` from the event's action. */
export type HookAction = 'open' | 'close' | 'reopen' | 'update' | 'merge' | 'approved';

function issueAttributes(links: ProjectLinks, project: HookProject, issue: HookIssue): Payload {
  return {
    author_id: issue.authorId,
    closed_at: isoTime(issue.closedAt),
    confidential: issue.confidential,
    created_at: isoTime(issue.createdAt),
    description: issue.description,
    discussion_locked: null,
    due_date: null,
    id: issue.id,
    iid: issue.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    milestone_id: issue.milestoneId,
    moved_to_id: null,
    duplicated_to_id: null,
    project_id: issue.projectId,
    relative_position: null,
    state_id: issue.state === 'closed' ? 2 : 1,
    time_estimate: 0,
    title: issue.title,
    updated_at: isoTime(issue.updatedAt),
    updated_by_id: null,
    url: `${projectWebUrl(links.externalUrl, project)}/-/issues/${issue.iid}`,
    total_time_spent: 0,
    human_total_time_spent: null,
    human_time_estimate: null,
    assignee_ids: [],
    assignee_id: null,
    labels: [],
    state: issue.state,
  };
}

export function issuePayload(
  links: ProjectLinks,
  input: { user: HookUser; project: HookProject; issue: HookIssue; action: HookAction },
): Payload {
  const { user, project, issue, action } = input;
  return {
    object_kind: 'issue',
    event_type: issue.confidential ? 'confidential_issue' : 'issue',
    user: hookUser(user),
    project: hookProject(links, project),
    object_attributes: { ...issueAttributes(links, project, issue), action },
    labels: [],
    changes: {},
    repository: repository(links, project),
    assignees: [],
  };
}

function mergeRequestAttributes(
  links: ProjectLinks,
  project: HookProject,
  mr: HookMergeRequest,
): Payload {
  return {
    id: mr.id,
    iid: mr.iid,
    target_branch: mr.targetBranch,
    source_branch: mr.sourceBranch,
    source_project_id: mr.projectId,
    target_project_id: mr.projectId,
    author_id: mr.authorId,
    assignee_ids: [],
    reviewer_ids: [],
    title: mr.title,
    description: mr.description,
    created_at: isoTime(mr.createdAt),
    updated_at: isoTime(mr.updatedAt),
    merged_at: isoTime(mr.mergedAt),
    closed_at: isoTime(mr.closedAt),
    merge_user_id: mr.mergedById,
    milestone_id: mr.milestoneId,
    state: mr.state,
    draft: false,
    work_in_progress: false,
    url: `${projectWebUrl(links.externalUrl, project)}/-/merge_requests/${mr.iid}`,
    source: hookProject(links, project),
    target: hookProject(links, project),
    labels: [],
  };
}

export function mergeRequestPayload(
  links: ProjectLinks,
  input: {
    user: HookUser;
    project: HookProject;
    mergeRequest: HookMergeRequest;
    action: HookAction;
  },
): Payload {
  const { user, project, mergeRequest, action } = input;
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: hookUser(user),
    project: hookProject(links, project),
    object_attributes: { ...mergeRequestAttributes(links, project, mergeRequest), action },
    labels: [],
    changes: {},
    repository: repository(links, project),
    assignees: [],
    reviewers: [],
  };
}

export function notePayload(
  links: ProjectLinks,
  input: {
    user: HookUser;
    project: HookProject;
    note: HookNote;
    issue?: HookIssue | undefined;
    mergeRequest?: HookMergeRequest | undefined;
  },
): Payload {
  const { user, project, note, issue, mergeRequest } = input;
  const confidential = issue?.confidential === true;
  const noteableUrl = issue
    ? `${projectWebUrl(links.externalUrl, project)}/-/issues/${issue.iid}`
    : `${projectWebUrl(links.externalUrl, project)}/-/merge_requests/${mergeRequest?.iid ?? 0}`;
  return {
    object_kind: 'note',
    event_type: confidential ? 'confidential_note' : 'note',
    user: hookUser(user),
    project_id: project.id,
    project: hookProject(links, project),
    object_attributes: {
      id: note.id,
      note: note.body,
      noteable_type: note.noteableType,
      author_id: note.authorId,
      created_at: utcTime(note.createdAt),
      updated_at: utcTime(note.updatedAt),
      project_id: project.id,
      attachment: null,
      line_code: null,
      commit_id: '',
      noteable_id: note.noteableId,
      system: note.system,
      st_diff: null,
      url: `${noteableUrl}#note_${note.id}`,
      action: 'create',
    },
    repository: repository(links, project),
    ...(issue ? { issue: issueAttributes(links, project, issue) } : {}),
    ...(mergeRequest
      ? { merge_request: mergeRequestAttributes(links, project, mergeRequest) }
      : {}),
  };
}

export function pushPayload(
  links: ProjectLinks,
  input: { user: HookUser; project: HookProject; push: HookPush },
): Payload {
  const { user, project, push } = input;
  const tag = push.refType === 'tag';
  const web = projectWebUrl(links.externalUrl, project);
  const after = push.after ?? BLANK;
  return {
    object_kind: tag ? 'tag_push' : 'push',
    event_name: tag ? 'tag_push' : 'push',
    before: push.before ?? BLANK,
    after,
    ref: qualifiedRef(push.refType, push.ref),
    ref_protected: false,
    checkout_sha: after === BLANK ? null : after,
    message: null,
    user_id: user.id,
    user_name: user.name,
    user_username: user.username,
    user_email: '[REDACTED]',
    user_avatar: avatarUrl(user),
    project_id: project.id,
    project: hookProject(links, project),
    commits: push.commits.map((commit) => ({
      id: commit.id,
      message: commit.message,
      title: commit.message.split('\n', 1)[0] ?? '',
      timestamp: commit.timestamp,
      url: commit.url,
      author: commit.author,
      added: [],
      modified: [],
      removed: [],
    })),
    total_commits_count: push.commitCount,
    repository: {
      ...repository(links, project),
      git_http_url: `${web}.git`,
      git_ssh_url: repositorySshUrl(links.ssh, project),
      visibility_level: VISIBILITY_LEVEL[project.visibility],
    },
  };
}

/**
 * A project membership change, as GitLab's member hooks name them (`user_add_to_team`,
 * `user_remove_from_team`), with the webhook's common `object_kind`, `user` and `project`.
 */
export function memberPayload(
  links: ProjectLinks,
  input: {
    user: HookUser;
    member: HookUser;
    project: HookProject;
    accessLevel: number | null;
    expiresAt: string | null;
    eventName: 'user_add_to_team' | 'user_remove_from_team';
    at: number;
  },
): Payload {
  const { user, member, project, accessLevel, expiresAt, eventName, at } = input;
  return {
    object_kind: 'member',
    event_type: 'member',
    event_name: eventName,
    created_at: isoTime(at),
    updated_at: isoTime(at),
    user: hookUser(user),
    project: hookProject(links, project),
    project_name: project.name,
    project_path: project.fullPath.slice(project.fullPath.lastIndexOf('/') + 1),
    project_path_with_namespace: project.fullPath,
    project_id: project.id,
    project_visibility: project.visibility,
    user_username: member.username,
    user_name: member.name,
    user_email: '[REDACTED]',
    user_id: member.id,
    access_level: accessLevel === null ? null : (ACCESS_NAMES[accessLevel] ?? String(accessLevel)),
    expires_at: expiresAt,
    object_attributes: {
      user_id: member.id,
      access_level: accessLevel,
      expires_at: expiresAt,
    },
    repository: repository(links, project),
  };
}
