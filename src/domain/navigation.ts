/**
 * Rules of the reads clients use to find their way (users, projects, namespaces, groups, issues
 * and merge requests across projects) that domain/visibility and domain/permissions do not
 * already hold. pulsegate keeps no groups table: a group is a namespace that holds projects and
 * is not a user's; what it is and who sees it is derived here from its projects.
 */
import { MAX_ID } from './ids.js';
import { ACCESS_LEVELS, type Visibility } from './vocabulary.js';

/** Merge requests of a private project need Reporter to be seen (GitLab's permissions table). */
export const MERGE_REQUEST_PRIVATE_MIN_ACCESS = ACCESS_LEVELS.reporter;

/**
 * A group's id: above every row id, so it never names a user's namespace (whose id is the user's
 * id, as `POST /projects` reads `namespace_id`), offset by the first project created under its
 * path. It stays the same as long as that project stays there.
 */
export function groupIdOf(firstProjectId: number): number {
  return MAX_ID + firstProjectId;
}

/** The first project's id a group id was derived from; null when it names no group. */
export function firstProjectOfGroupId(id: number): number | null {
  const first = id - MAX_ID;
  return Number.isInteger(id) && first >= 1 && first <= MAX_ID ? first : null;
}

/** `acme/platform/tools` → `acme`, `acme/platform`, `acme/platform/tools`. */
export function namespaceAncestry(path: string): string[] {
  const parts = path.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** The parent's path, or null for a top-level namespace. */
export function parentNamespace(path: string): string | null {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? null : path.slice(0, slash);
}

/**
 * GitLab refuses a group less open than any of its projects, so the most open visibility among
 * a group's projects (its subgroups' included) is the least a GitLab group holding them could be.
 */
export function groupVisibility(counts: { public: number; internal: number }): Visibility {
  if (counts.public > 0) return 'public';
  if (counts.internal > 0) return 'internal';
  return 'private';
}

/**
 * `GET /users` without a signed-in user: only an exact `username` lookup, never the whole list
 * (GitLab: "Not authorized to access /api/v4/users").
 */
export function mayListUsers(signedIn: boolean, username: string | undefined): boolean {
  return signedIn || (username !== undefined && username !== '');
}
