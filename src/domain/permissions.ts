/**
 * Who may change what: GitLab's project policy (app/policies/project_policy.rb, issue_policy.rb,
 * merge_request_policy.rb) reduced to the abilities pulsegate's writes need. REST, GraphQL, the
 * git push endpoint and the pages all ask here; none holds a rule of its own.
 *
 * Reading is decided first (an unreadable project or issue is "not found", never "forbidden");
 * these abilities are only asked about objects the actor can already read.
 */
import { type Viewer, canReadProject } from './visibility.js';
import { ACCESS_LEVELS, type Visibility } from './vocabulary.js';

/** The actor and what they are in the project: its membership level (null for non-members). */
export interface ProjectActor {
  viewer: Viewer;
  visibility: Visibility;
  accessLevel: number | null;
}

export type Ability =
  /** Open issues and comment on readable things: guests, or anyone signed in on a public/internal project. */
  | 'create_issue'
  | 'create_note'
  /** Close, reopen and edit any issue (an issue's author may do it to their own: see canUpdateIssue). */
  | 'update_issue'
  /**
   * Set an issue's milestone (and assignees, labels, due date, which pulsegate does not keep):
   * GitLab's `set_issue_metadata`, Reporter and up (Planner in newer versions). Without it these
   * parameters are dropped silently, never refused (see `issueMetadataKept`).
   */
  | 'set_issue_metadata'
  /** Open, edit, close and reopen merge requests; push code. */
  | 'create_merge_request'
  | 'update_merge_request'
  | 'merge'
  | 'approve'
  | 'push_code'
  /** Create, edit, close, delete milestones (GitLab gives this to Reporter and up). */
  | 'admin_milestone'
  /** Add, change and remove members. */
  | 'admin_member'
  /** See the member list. */
  | 'read_member'
  /** Add, change, test and remove the project's webhooks and see their deliveries (GitLab: Maintainer). */
  | 'admin_hooks';

const MINIMUM: Record<Ability, number> = {
  create_issue: ACCESS_LEVELS.guest,
  create_note: ACCESS_LEVELS.guest,
  read_member: ACCESS_LEVELS.guest,
  update_issue: ACCESS_LEVELS.reporter,
  set_issue_metadata: ACCESS_LEVELS.reporter,
  admin_milestone: ACCESS_LEVELS.reporter,
  create_merge_request: ACCESS_LEVELS.developer,
  update_merge_request: ACCESS_LEVELS.developer,
  merge: ACCESS_LEVELS.developer,
  approve: ACCESS_LEVELS.developer,
  push_code: ACCESS_LEVELS.developer,
  admin_member: ACCESS_LEVELS.maintainer,
  admin_hooks: ACCESS_LEVELS.maintainer,
};

/**
 * Abilities a signed-in non-member has on a project they can read (public or internal): GitLab
 * lets any such user open issues, comment and see the members.
 */
const NON_MEMBER: ReadonlySet<Ability> = new Set(['create_issue', 'create_note', 'read_member']);

export function can(actor: ProjectActor, ability: Ability): boolean {
  const { viewer, visibility, accessLevel } = actor;
  if (!canReadProject(visibility, viewer, accessLevel)) return false;
  if (viewer.admin) return true;
  if (accessLevel === null) return NON_MEMBER.has(ability);
  return accessLevel >= MINIMUM[ability];
}

/** The author of an issue (or merge request) may edit, close and reopen it whatever their role. */
export function canUpdateTracked(
  actor: ProjectActor,
  item: { authorId: number },
  ability: 'update_issue' | 'update_merge_request',
): boolean {
  if (!canReadProject(actor.visibility, actor.viewer, actor.accessLevel)) return false;
  return actor.viewer.userId === item.authorId || can(actor, ability);
}

/**
 * GitLab CE: any member who may update the merge request may approve it, once. Approving it twice
 * is refused (GitLab answers 401 then).
 */
export function canApprove(actor: ProjectActor, alreadyApproved: boolean): boolean {
  if (alreadyApproved) return false;
  return actor.viewer.admin || (actor.accessLevel !== null && can(actor, 'approve'));
}

/**
 * Granting a level: maintainers grant up to Maintainer; only owners (and admins) grant Owner
 * or change an owner's membership.
 */
export function canGrant(actor: ProjectActor, level: number, currentLevel: number | null): boolean {
  if (!can(actor, 'admin_member')) return false;
  if (actor.viewer.admin || (actor.accessLevel ?? 0) >= ACCESS_LEVELS.owner) return true;
  return level < ACCESS_LEVELS.owner && (currentLevel ?? 0) < ACCESS_LEVELS.owner;
}

/** Removing a membership: maintainers remove non-owners; anyone may leave (remove themselves). */
export function canRemoveMember(
  actor: ProjectActor,
  member: { userId: number; accessLevel: number },
): boolean {
  if (member.userId === actor.viewer.userId && actor.accessLevel !== null) return true;
  return canGrant(actor, member.accessLevel, member.accessLevel);
}

/**
 * Whether a membership may end (be removed, or lose its Owner level) without locking the project:
 * GitLab refuses (403) to remove or demote a project's last Owner, whoever asks, admins included,
 * and the owner of a personal namespace keeps Owner on its projects for good. `otherOwners`: the
 * project's Owners besides this member whose membership is active, counted under the project's
 * lock in the same transaction as the change.
 */
export function mayEndOwnership(
  member: { accessLevel: number; isNamespaceOwner: boolean },
  otherOwners: number,
): boolean {
  if (member.isNamespaceOwner) return false;
  return member.accessLevel < ACCESS_LEVELS.owner || otherOwners > 0;
}

/**
 * The issue fields an actor's change keeps: without `set_issue_metadata` GitLab drops the
 * milestone (and assignees, labels, due date) silently (IssuableBaseService#filter_params), and
 * the rest of the request goes through.
 */
export function issueMetadataKept(actor: ProjectActor): boolean {
  return can(actor, 'set_issue_metadata');
}

/**
 * Creating a project in a namespace: one's own (the username), or, pulsegate having no groups
 * table, a namespace in which the user already owns a project (GitLab: Owner of the group).
 * Administrators may create anywhere.
 */
export function canCreateProjectIn(
  viewer: Viewer & { username: string },
  namespace: string,
  ownsProjectInNamespace: boolean,
): boolean {
  if (viewer.admin) return true;
  if (namespace.toLowerCase() === viewer.username.toLowerCase()) return true;
  return ownsProjectInNamespace;
}
