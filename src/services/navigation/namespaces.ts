/**
 * Namespaces and groups, derived from the namespaces projects already have: a user's namespace is
 * their username; every other namespace that holds a project (and each of its parents, such as
 * `acme` above `acme/platform`) is a group. Group membership is not modelled: who "owns" a group
 * is who owns a project directly in it (domain/permissions canCreateProjectIn), and who sees a
 * group is who can read one of its projects.
 */
import {
  firstProjectOfGroupId,
  groupIdOf,
  groupVisibility,
  namespaceAncestry,
  parentNamespace,
} from '../../domain/navigation.js';
import { isRowId } from '../../domain/ids.js';
import type { Viewer } from '../../domain/visibility.js';
import type { Visibility } from '../../domain/vocabulary.js';
import type { Store } from '../../store/store.js';
import { type UserView, userView } from '../views.js';

export interface GroupView {
  kind: 'group';
  id: number;
  /** As first stored (the path of the group's first project's namespace). */
  fullPath: string;
  name: string;
  path: string;
  parentId: number | null;
  visibility: Visibility;
}

export interface UserNamespaceView {
  kind: 'user';
  /** The user's id, as `POST /projects` reads `namespace_id`. */
  id: number;
  user: UserView;
}

export type NamespaceView = GroupView | UserNamespaceView;

/** Every group, keyed by lower-cased full path, built from one read of the project namespaces. */
export async function allGroups(store: Store): Promise<Map<string, GroupView>> {
  const rows = await store.navigation.projects.groupNamespaces();
  // A parent holds what its subgroups hold: the first project and the openness of the whole tree.
  const tree = new Map<string, { path: string; first: number; pub: number; internal: number }>();
  for (const row of rows) {
    for (const path of namespaceAncestry(row.namespace)) {
      const key = path.toLowerCase();
      const seen = tree.get(key);
      if (!seen) {
        tree.set(key, {
          path,
          first: row.first_project_id,
          pub: row.public_count,
          internal: row.internal_count,
        });
      } else {
        seen.first = Math.min(seen.first, row.first_project_id);
        seen.pub += row.public_count;
        seen.internal += row.internal_count;
      }
    }
  }
  const groups = new Map<string, GroupView>();
  for (const [key, node] of tree) {
    const parent = parentNamespace(key);
    const parentNode = parent === null ? undefined : tree.get(parent);
    const name = node.path.slice(node.path.lastIndexOf('/') + 1);
    groups.set(key, {
      kind: 'group',
      id: groupIdOf(node.first),
      fullPath: node.path,
      name,
      path: name,
      parentId: parentNode ? groupIdOf(parentNode.first) : null,
      visibility: groupVisibility({ public: node.pub, internal: node.internal }),
    });
  }
  return groups;
}

/** Whether the viewer sees a group: they can read one of its projects (subgroups included). */
export function groupReadable(
  group: GroupView,
  readable: ReadonlySet<string>,
  viewer: Viewer | null,
) {
  if (viewer?.admin) return true;
  const key = group.fullPath.toLowerCase();
  for (const namespace of readable) {
    if (namespace === key || namespace.startsWith(`${key}/`)) return true;
  }
  return false;
}

/** A group by id (derived) or full path; undefined when there is none. */
export function findGroup(groups: Map<string, GroupView>, idOrPath: string): GroupView | undefined {
  if (/^\d+$/.test(idOrPath)) {
    const id = Number(idOrPath);
    if (firstProjectOfGroupId(id) === null) return undefined;
    for (const group of groups.values()) if (group.id === id) return group;
    return undefined;
  }
  return groups.get(idOrPath.toLowerCase());
}

/** A user's namespace by the user's id or username; undefined when there is none. */
export async function findUserNamespace(
  store: Store,
  idOrPath: string,
): Promise<UserNamespaceView | undefined> {
  let row;
  if (/^\d+$/.test(idOrPath)) {
    const id = Number(idOrPath);
    row = isRowId(id) ? await store.users.byId(id) : undefined;
  } else if (!idOrPath.includes('/')) {
    row = await store.users.byUsername(idOrPath);
  }
  return row ? { kind: 'user', id: row.id, user: userView(row) } : undefined;
}
