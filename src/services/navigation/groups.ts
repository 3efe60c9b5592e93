/** Namespaces and groups as the namespaces, groups and project-creation routes ask for them. */
import { NotFoundError } from '../../domain/errors.js';
import { firstProjectOfGroupId } from '../../domain/navigation.js';
import { canCreateProjectIn } from '../../domain/permissions.js';
import type { Viewer } from '../../domain/visibility.js';
import { ACCESS_LEVELS } from '../../domain/vocabulary.js';
import type { Store } from '../../store/store.js';
import { type UserView, userView } from '../views.js';
import type { Listed, ListedProject, ProjectListParams, Slice } from './lists.js';
import {
  type GroupView,
  type NamespaceView,
  allGroups,
  findGroup,
  findUserNamespace,
  groupReadable,
} from './namespaces.js';
import type { ProjectDirectory } from './projects.js';

export class GroupDirectory {
  constructor(
    private readonly store: Store,
    private readonly projects: ProjectDirectory,
  ) {}

  /**
   * `GET /namespaces`: where the caller may create projects: their own namespace and the groups
   * in which they own a project (every namespace, for an administrator).
   */
  async namespaces(
    me: UserView,
    viewer: Viewer,
    search: string | undefined,
    slice: Slice,
  ): Promise<Listed<NamespaceView>> {
    const [groups, owned] = await Promise.all([
      allGroups(this.store),
      this.store.navigation.projects.namespacesWithLevel(me.id, ACCESS_LEVELS.owner),
    ]);
    const all: NamespaceView[] = [];
    const users = viewer.admin ? await this.store.navigation.users.all(undefined) : [];
    if (!viewer.admin) all.push({ kind: 'user', id: me.id, user: me });
    for (const row of users) all.push({ kind: 'user', id: row.id, user: userView(row) });
    for (const group of [...groups.values()].sort((a, b) => a.id - b.id)) {
      const key = group.fullPath.toLowerCase();
      if (
        canCreateProjectIn({ ...viewer, username: me.username }, group.fullPath, owned.has(key))
      ) {
        all.push(group);
      }
    }
    const needle = search?.toLowerCase();
    const matching = needle
      ? all.filter((n) =>
          (n.kind === 'user' ? n.user.username : n.fullPath).toLowerCase().includes(needle),
        )
      : all;
    return {
      items: matching.slice(slice.offset, slice.offset + slice.limit),
      total: matching.length,
    };
  }

  /**
   * The path of the namespace a numeric `namespace_id` names (a user's id, or a group's), whoever
   * asks: `POST /projects` then decides whether the caller may create projects there.
   */
  async namespacePathOf(id: number): Promise<string | undefined> {
    if (firstProjectOfGroupId(id) !== null) {
      return findGroup(await allGroups(this.store), String(id))?.fullPath;
    }
    const own = await findUserNamespace(this.store, String(id));
    return own?.user.username;
  }

  /**
   * `GET /namespaces/:id`: one's own namespace, or a group one can see; any, for an
   * administrator. By id or full path; anything else is 404.
   */
  async namespace(idOrPath: string, viewer: Viewer): Promise<NamespaceView> {
    const own = await findUserNamespace(this.store, idOrPath);
    if (own) {
      if (viewer.admin || viewer.userId === own.id) return own;
      throw new NotFoundError('Namespace');
    }
    const group = await this.readableGroup(idOrPath, viewer, 'Namespace');
    return group;
  }

  /** `GET /groups`: the groups the viewer can see (those holding a project they can read). */
  async list(
    q: {
      search?: string | undefined;
      owned?: boolean | undefined;
      minAccessLevel?: number | undefined;
      topLevelOnly?: boolean | undefined;
      orderBy: 'name' | 'path' | 'id';
      sort: 'asc' | 'desc';
    },
    viewer: Viewer | null,
    slice: Slice,
  ): Promise<Listed<GroupView>> {
    const [groups, readable] = await Promise.all([
      allGroups(this.store),
      this.store.navigation.projects.readableNamespaces(viewer),
    ]);
    let level: number | undefined;
    if (viewer && q.owned) level = ACCESS_LEVELS.owner;
    if (viewer && q.minAccessLevel !== undefined) level = Math.max(level ?? 0, q.minAccessLevel);
    const withLevel =
      viewer && level !== undefined
        ? await this.store.navigation.projects.namespacesWithLevel(viewer.userId, level)
        : null;
    const needle = q.search?.toLowerCase();
    const listed = [...groups.values()].filter(
      (g) =>
        groupReadable(g, readable, viewer) &&
        (!needle || g.fullPath.toLowerCase().includes(needle)) &&
        (!q.topLevelOnly || g.parentId === null) &&
        (!withLevel || withLevel.has(g.fullPath.toLowerCase())),
    );
    const key = (g: GroupView) => (q.orderBy === 'id' ? g.id : g.fullPath.toLowerCase());
    listed.sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      const order = x < y ? -1 : x > y ? 1 : a.id - b.id;
      return q.sort === 'asc' ? order : -order;
    });
    return { items: listed.slice(slice.offset, slice.offset + slice.limit), total: listed.length };
  }

  /** `GET /groups/:id`, with the projects directly in it that the viewer can read. */
  async get(
    idOrPath: string,
    viewer: Viewer | null,
  ): Promise<{ group: GroupView; projects: ListedProject[] }> {
    const group = await this.readableGroup(idOrPath, viewer, 'Group');
    const rows = await this.store.navigation.projects.list({
      viewer,
      namespace: group.fullPath,
      orderBy: 'id',
      sort: 'asc',
      offset: 0,
      limit: 100,
    });
    return { group, projects: await this.projects.details(rows, viewer) };
  }

  /** `GET /groups/:id/projects`: its own projects, or its subgroups' too (`include_subgroups`). */
  async projectsOf(
    idOrPath: string,
    includeSubgroups: boolean,
    p: ProjectListParams,
    viewer: Viewer | null,
    slice: Slice,
    me?: UserView,
  ): Promise<Listed<ListedProject>> {
    const group = await this.readableGroup(idOrPath, viewer, 'Group');
    const scope = includeSubgroups
      ? { namespaceTree: group.fullPath }
      : { namespace: group.fullPath };
    return this.projects.list(p, viewer, slice, scope, me);
  }

  private async readableGroup(
    idOrPath: string,
    viewer: Viewer | null,
    resource: 'Group' | 'Namespace',
  ): Promise<GroupView> {
    const [groups, readable] = await Promise.all([
      allGroups(this.store),
      this.store.navigation.projects.readableNamespaces(viewer),
    ]);
    const group = findGroup(groups, idOrPath);
    if (!group || !groupReadable(group, readable, viewer)) throw new NotFoundError(resource);
    return group;
  }
}
