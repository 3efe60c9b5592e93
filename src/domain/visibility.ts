/**
 * Who may see what. The store turns these rules into SQL so pages are full and counts exact; the
 * pure predicates here serve single-object checks (project lookup, user profiles) and tests.
 */
import { ACCESS_LEVELS, type Visibility } from './vocabulary.js';

export interface Viewer {
  userId: number;
  admin: boolean;
}

/** The viewer a signed-in user or a token's owner is. */
export function viewerOf(user: { id: number; admin: boolean }): Viewer {
  return { userId: user.id, admin: user.admin };
}

/** Confidential issues (and notes on them) need Reporter, unless the viewer wrote the issue. */
export const CONFIDENTIAL_MIN_ACCESS = ACCESS_LEVELS.reporter;
/**
 * Code (push events) and merge requests (their events and the notes on them) of a private project
 * need Reporter: guests can neither download code nor see merge requests there (GitLab's
 * permissions table; gitlab-foss#51328). On public and internal projects the Guest role is not
 * enforced for them: everyone who reads the project reads its merge requests.
 */
export const PRIVATE_CODE_MIN_ACCESS = ACCESS_LEVELS.reporter;

/**
 * `read_merge_request` (and `download_code`): the project is readable and, when it is private,
 * the viewer is an admin or at least a Reporter there.
 */
export function canReadMergeRequests(
  visibility: Visibility,
  viewer: Viewer | null,
  accessLevel: number | null,
): boolean {
  if (!canReadProject(visibility, viewer, accessLevel)) return false;
  return viewer?.admin === true || !hidesPrivateCode(visibility, accessLevel);
}

/**
 * Whether a non-admin at this access level (null: none) is kept from the project's code and merge
 * requests: below Reporter in a private project. The listings' SQL follows this (store/events).
 */
export function hidesPrivateCode(visibility: string, accessLevel: number | null): boolean {
  return visibility === 'private' && (accessLevel ?? 0) < PRIVATE_CODE_MIN_ACCESS;
}

/** `read_project`: public to everyone, internal to signed-in users, private to members. */
export function canReadProject(
  visibility: Visibility,
  viewer: Viewer | null,
  accessLevel: number | null,
): boolean {
  if (visibility === 'public') return true;
  if (!viewer) return false;
  if (viewer.admin || accessLevel !== null) return true;
  return visibility === 'internal';
}

/** Whether a member at this access level reads every confidential issue of the project. */
export function readsAllConfidential(accessLevel: number | null): boolean {
  return (accessLevel ?? 0) >= CONFIDENTIAL_MIN_ACCESS;
}

/** `read_issue` of a confidential issue: admins, Reporter+ members and the issue's author. */
export function canReadConfidential(
  issue: { authorId: number },
  viewer: Viewer | null,
  accessLevel: number | null,
): boolean {
  if (!viewer) return false;
  if (viewer.admin || viewer.userId === issue.authorId) return true;
  return readsAllConfidential(accessLevel);
}

/** A personal snippet (no project): public to everyone, internal to signed-in users, else its author. */
export function canReadPersonalSnippet(
  snippet: { authorId: number; visibility: string },
  viewer: Viewer | null,
): boolean {
  if (snippet.visibility === 'public') return true;
  if (!viewer) return false;
  if (viewer.admin || viewer.userId === snippet.authorId) return true;
  return snippet.visibility === 'internal';
}

/** `read_user_profile`: private or blocked profiles are visible only to themselves and admins. */
export function canReadUserProfile(
  user: { id: number; state: string; privateProfile: boolean },
  viewer: Viewer | null,
): boolean {
  if (viewer && (viewer.admin || viewer.userId === user.id)) return true;
  return user.state === 'active' && !user.privateProfile;
}
