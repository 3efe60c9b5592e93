/**
 * Face-neutral views: what services hand to the faces instead of store rows. Rows carry storage
 * conventions (0/1 flags, snake_case, secrets such as password and OTP digests); views carry
 * booleans, camelCase and nothing secret, so a face can present them without knowing the schema.
 */
import { DEFAULT_ID_TOKEN_ALG } from '../domain/oidc.js';
import type { Visibility } from '../domain/vocabulary.js';
import type {
  IssueRow,
  MergeRequestRow,
  MilestoneRow,
  NoteRow,
  OAuthApplicationRow,
  PersonalAccessTokenRow,
  ProjectRow,
  SnippetRow,
  UserRow,
} from '../store/schema.js';

export interface UserView {
  id: number;
  username: string;
  name: string;
  email: string;
  state: string;
  admin: boolean;
  privateProfile: boolean;
  twoFactorEnabled: boolean;
  /** An uploaded avatar; null means the default (see domain/links avatarUrl). */
  avatarUrl: string | null;
  createdAt: number;
  /** The IANA zone the contribution calendar counts days in (GitLab's `timezone`). */
  timeZone: string;
  /** "Include private contributions on my profile": the calendar counts every project. */
  includePrivateContributions: boolean;
}

export interface ProjectView {
  id: number;
  namespace: string;
  path: string;
  fullPath: string;
  name: string;
  description: string;
  visibility: Visibility;
  creatorId: number;
  createdAt: number;
  defaultBranch: string;
  /** The newest event's time; the creation time until the project has one. */
  lastActivityAt: number;
}

/** A project membership with its user. */
export interface MemberView {
  user: UserView;
  accessLevel: number;
  /** YYYY-MM-DD or null. */
  expiresAt: string | null;
  createdAt: number | null;
  createdBy: UserView | null;
}

/** What issues and merge requests share. */
export interface TrackedView {
  id: number;
  projectId: number;
  iid: number;
  title: string;
  description: string;
  authorId: number;
  state: string;
  milestoneId: number | null;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  closedById: number | null;
}

export interface IssueView extends TrackedView {
  confidential: boolean;
}

export interface MergeRequestView extends TrackedView {
  sourceBranch: string;
  targetBranch: string;
  mergedAt: number | null;
  mergedById: number | null;
}

export interface MilestoneView {
  id: number;
  projectId: number;
  iid: number;
  title: string;
  description: string;
  /** `active` or `closed`. */
  state: string;
  dueDate: string | null;
  startDate: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface SnippetView {
  id: number;
  projectId: number | null;
  title: string;
  authorId: number;
  visibility: string;
  createdAt: number;
}

/** A note with its author and the iid of the issue or merge request it is on. */
export interface NoteView {
  id: number;
  projectId: number;
  authorId: number;
  body: string;
  noteableType: string;
  noteableId: number;
  system: boolean;
  attachment: string | null;
  createdAt: number;
  updatedAt: number;
  author: UserView | null;
  noteableIid: number | null;
}

/** A personal access token as its owner sees it on the profile page (never the digest). */
export interface PersonalTokenView {
  id: number;
  name: string;
  scopes: string[];
  expiresAt: string | null;
  revoked: boolean;
  lastUsedAt: number | null;
  createdAt: number;
}

/** A registered OAuth application as its owner and the consent page see it (no secret). */
export interface ApplicationView {
  id: number;
  /** The public client_id. */
  uid: string;
  name: string;
  redirectUris: string[];
  scopes: string[];
  confidential: boolean;
  ownerId: number;
  /** How its ID tokens are signed (RS256 unless it registered ES256). */
  idTokenAlg: string;
  createdAt: number;
}

/**
 * Store rows are cached (store/row-cache) and keep their identity while unchanged, so their views
 * are remembered per row object: a page of events maps each user and project once.
 */
function remembered<Row extends object, View>(make: (row: Row) => View): (row: Row) => View {
  const views = new WeakMap<Row, View>();
  return (row) => {
    let view = views.get(row);
    if (!view) {
      view = make(row);
      views.set(row, view);
    }
    return view;
  };
}

export const userView = remembered(toUserView);
export const projectView = remembered(toProjectView);

function toUserView(row: UserRow): UserView {
  return {
    id: row.id,
    username: row.username,
    name: row.name,
    email: row.email,
    state: row.state,
    admin: row.admin === 1,
    privateProfile: row.private_profile === 1,
    twoFactorEnabled: row.two_factor_enabled === 1,
    avatarUrl: row.avatar_url,
    createdAt: row.created_at,
    timeZone: row.timezone,
    includePrivateContributions: row.include_private_contributions === 1,
  };
}

function toProjectView(row: ProjectRow): ProjectView {
  return {
    id: row.id,
    namespace: row.namespace,
    path: row.path,
    fullPath: row.full_path,
    name: row.name,
    description: row.description,
    visibility: row.visibility as Visibility,
    creatorId: row.creator_id,
    createdAt: row.created_at,
    defaultBranch: row.default_branch,
    lastActivityAt: row.last_activity_at ?? row.created_at,
  };
}

function trackedView(row: IssueRow | MergeRequestRow): TrackedView {
  return {
    id: row.id,
    projectId: row.project_id,
    iid: row.iid,
    title: row.title,
    description: row.description,
    authorId: row.author_id,
    state: row.state,
    milestoneId: row.milestone_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    closedAt: row.closed_at,
    closedById: row.closed_by_id,
  };
}

export function issueView(row: IssueRow): IssueView {
  return { ...trackedView(row), confidential: row.confidential === 1 };
}

export function mergeRequestView(row: MergeRequestRow): MergeRequestView {
  return {
    ...trackedView(row),
    sourceBranch: row.source_branch,
    targetBranch: row.target_branch,
    mergedAt: row.merged_at,
    mergedById: row.merged_by_id,
  };
}

export function milestoneView(row: MilestoneRow): MilestoneView {
  return {
    id: row.id,
    projectId: row.project_id,
    iid: row.iid,
    title: row.title,
    description: row.description,
    state: row.state,
    dueDate: row.due_date,
    startDate: row.start_date,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function snippetView(row: SnippetRow): SnippetView {
  return {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    authorId: row.author_id,
    visibility: row.visibility,
    createdAt: row.created_at,
  };
}

export function noteView(
  row: NoteRow,
  author: UserView | null,
  noteableIid: number | null,
): NoteView {
  return {
    id: row.id,
    projectId: row.project_id,
    authorId: row.author_id,
    body: row.body,
    noteableType: row.noteable_type,
    noteableId: row.noteable_id,
    system: row.system === 1,
    attachment: row.attachment,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    author,
    noteableIid,
  };
}

export function personalTokenView(row: PersonalAccessTokenRow): PersonalTokenView {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes.split(' ').filter(Boolean),
    expiresAt: row.expires_at,
    revoked: row.revoked === 1,
    lastUsedAt: row.last_used_at,
    createdAt: row.created_at,
  };
}

export function applicationView(row: OAuthApplicationRow): ApplicationView {
  return {
    id: row.id,
    uid: row.uid,
    name: row.name,
    redirectUris: row.redirect_uris.split('\n').filter(Boolean),
    scopes: row.scopes.split(' ').filter(Boolean),
    confidential: row.confidential === 1,
    ownerId: row.owner_id,
    idTokenAlg: row.id_token_signed_response_alg ?? DEFAULT_ID_TOKEN_ALG,
    createdAt: row.created_at,
  };
}
