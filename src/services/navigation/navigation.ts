/**
 * The reads clients use to reach the events: users, projects, namespaces and groups, issues and
 * merge requests across projects. One call per route; each applies the viewer's visibility in its
 * query (store/navigation) and hands back views.
 */
import { ForbiddenError, NotAllowedError, NotFoundError } from '../../domain/errors.js';
import { isRowId } from '../../domain/ids.js';
import { firstProjectOfGroupId, mayListUsers } from '../../domain/navigation.js';
import { canCreateProjectIn } from '../../domain/permissions.js';
import { type Viewer, canReadUserProfile } from '../../domain/visibility.js';
import { ACCESS_LEVELS } from '../../domain/vocabulary.js';
import type { ProjectOrder, ProjectQuery, TrackedAcrossQuery } from '../../store/navigation.js';
import type { IssueRow, MergeRequestRow, ProjectRow, UserRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { IssueDetail } from '../content/issues.js';
import type { MergeRequestDetail } from '../content/merge-requests.js';
import type { ProjectDetail } from '../content/projects.js';
import {
  type UserView,
  issueView,
  mergeRequestView,
  milestoneView,
  projectView,
  userView,
} from '../views.js';
import {
  type GroupView,
  type NamespaceView,
  allGroups,
  findGroup,
  findUserNamespace,
  groupReadable,
} from './namespaces.js';

export type { GroupView, NamespaceView, UserNamespaceView } from './namespaces.js';

/** An offset page as the faces read it. */
export interface Slice {
  offset: number;
  limit: number;
}

/** A page of items with GitLab's total (null under keyset pagination, which counts nothing). */
export interface Listed<T> {
  items: T[];
  total: number | null;
  /** Keyset pagination: the id the next page starts after (or before); null on the last page. */
  nextId?: number | null;
}

export interface ProjectListParams {
  membership?: boolean | undefined;
  owned?: boolean | undefined;
  starred?: boolean | undefined;
  search?: string | undefined;
  visibility?: string | undefined;
  minAccessLevel?: number | undefined;
  idAfter?: number | undefined;
  idBefore?: number | undefined;
  orderBy: ProjectOrder | 'updated_at';
  sort: 'asc' | 'desc';
  /** GitLab's `pagination=keyset`: ordered by id, no totals, the next page by id. */
  keyset: boolean;
}

export interface TrackedListParams {
  scope: 'created_by_me' | 'assigned_to_me' | 'all';
  state?: string | undefined;
  search?: string | undefined;
  authorId?: number | undefined;
  orderBy: 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
}

/** A project in a list, with its namespace (null only if it could not be resolved). */
export interface ListedProject extends ProjectDetail {
  namespace: NamespaceView | null;
}

/** A user with whether the viewer may read their profile (private and blocked ones: no). */
export interface UserLookup {
  user: UserView;
  profileReadable: boolean;
}

const KEYSET_UNAVAILABLE = 'Keyset pagination is not yet available for this type of request';

export class NavigationService {
  constructor(private readonly store: Store) {}

  /** `GET /users/:id`: any user by id; 404 for none. */
  async user(id: number, viewer: Viewer | null): Promise<UserLookup> {
    const row = isRowId(id) ? await this.store.users.byId(id) : undefined;
    if (!row) throw new NotFoundError('User');
    const user = userView(row);
    return { user, profileReadable: canReadUserProfile(user, viewer) };
  }

  /** `GET /users`: blocked users only for administrators; anonymous callers name one username. */
  async users(
    q: { username?: string | undefined; search?: string | undefined },
    viewer: Viewer | null,
    slice: Slice,
  ): Promise<Listed<UserView>> {
    if (!mayListUsers(viewer !== null, q.username)) {
      throw new ForbiddenError('Not authorized to access /api/v4/users');
    }
    const query = { ...q, includeBlocked: viewer?.admin ?? false, ...slice };
    const [rows, total] = await Promise.all([
      this.store.navigation.users(query),
      this.store.navigation.countUsers(query),
    ]);
    return { items: rows.map(userView), total };
  }

  /** `GET /projects`. */
  projects(p: ProjectListParams, viewer: Viewer | null, slice: Slice, user?: UserView) {
    return this.listProjects(p, viewer, slice, {}, user);
  }

  /** `GET /users/:id/projects`: the projects in the user's own namespace. */
  async userProjects(
    idOrUsername: string,
    p: ProjectListParams,
    viewer: Viewer | null,
    slice: Slice,
    me?: UserView,
  ) {
    const owner = await this.userByIdOrUsername(idOrUsername);
    return this.listProjects(p, viewer, slice, { namespace: owner.username }, me);
  }

  /**
   * `GET /users/:id/contributed_projects`: projects in which the user wrote an event. Nothing for
   * a profile the viewer may not read (private or blocked), as GitLab's finder answers.
   */
  async contributedProjects(
    idOrUsername: string,
    p: ProjectListParams,
    viewer: Viewer | null,
    slice: Slice,
    me?: UserView,
  ): Promise<Listed<ListedProject>> {
    const owner = await this.userByIdOrUsername(idOrUsername);
    if (!canReadUserProfile(owner, viewer)) return { items: [], total: 0, nextId: null };
    return this.listProjects(p, viewer, slice, { contributor: owner.id }, me);
  }

  private async userByIdOrUsername(idOrUsername: string): Promise<UserView> {
    let row: UserRow | undefined;
    if (/^\d+$/.test(idOrUsername)) {
      const id = Number(idOrUsername);
      row = isRowId(id) ? await this.store.users.byId(id) : undefined;
    } else {
      row = await this.store.users.byUsername(idOrUsername);
    }
    if (!row) throw new NotFoundError('User');
    return userView(row);
  }

  private async listProjects(
    p: ProjectListParams,
    viewer: Viewer | null,
    slice: Slice,
    scope: Pick<ProjectQuery, 'namespace' | 'namespaceTree' | 'contributor'>,
    me?: UserView,
  ): Promise<Listed<ListedProject>> {
    if (p.keyset && p.orderBy !== 'id') throw new NotAllowedError(KEYSET_UNAVAILABLE);
    // Stars are not kept yet: nobody has starred anything.
    if (p.starred) return { items: [], total: p.keyset ? null : 0, nextId: null };
    const signedIn = viewer !== null && me !== undefined;
    const query: ProjectQuery = {
      viewer,
      ...scope,
      membership: signedIn && p.membership === true,
      minAccessLevel: signedIn ? p.minAccessLevel : undefined,
      owned: signedIn && p.owned ? { userId: me.id, username: me.username } : undefined,
      search: p.search,
      visibility: p.visibility,
      idAfter: p.idAfter,
      idBefore: p.idBefore,
      orderBy: p.orderBy === 'updated_at' ? 'last_activity_at' : p.orderBy,
      sort: p.sort,
      offset: p.keyset ? 0 : slice.offset,
      limit: p.keyset ? slice.limit + 1 : slice.limit,
    };
    if (p.keyset) {
      const rows = await this.store.navigation.projects(query);
      const page = rows.slice(0, slice.limit);
      const more = rows.length > slice.limit;
      return {
        items: await this.projectDetails(page, viewer),
        total: null,
        nextId: more ? page[page.length - 1]!.id : null,
      };
    }
    const [rows, total] = await Promise.all([
      this.store.navigation.projects(query),
      this.store.navigation.countProjects(query),
    ]);
    return { items: await this.projectDetails(rows, viewer), total };
  }

  private async projectDetails(
    rows: ProjectRow[],
    viewer: Viewer | null,
  ): Promise<ListedProject[]> {
    const [levels, namespaces] = await Promise.all([
      viewer
        ? this.store.projects.accessLevels(
            viewer.userId,
            rows.map((r) => r.id),
          )
        : new Map<number, number>(),
      this.namespacesOf(rows.map((r) => r.namespace)),
    ]);
    return rows.map((row) => ({
      project: projectView(row),
      accessLevel: levels.get(row.id) ?? null,
      namespace: namespaces.get(row.namespace.toLowerCase()) ?? null,
    }));
  }

  /** The namespace a project lives in (its entity's `namespace`), once the project is readable. */
  async namespaceOf(path: string): Promise<NamespaceView | undefined> {
    return (await this.namespacesOf([path])).get(path.toLowerCase());
  }

  /** The namespaces of these paths, by lower-cased path: a user's, or a group. */
  async namespacesOf(paths: readonly string[]): Promise<Map<string, NamespaceView>> {
    const out = new Map<string, NamespaceView>();
    if (paths.length === 0) return out;
    const single = [...new Set(paths.filter((p) => !p.includes('/')))];
    const [users, groups] = await Promise.all([
      this.store.navigation.usersByUsernames(single),
      allGroups(this.store),
    ]);
    for (const row of users) {
      out.set(row.username.toLowerCase(), { kind: 'user', id: row.id, user: userView(row) });
    }
    for (const path of paths) {
      const key = path.toLowerCase();
      const group = groups.get(key);
      if (!out.has(key) && group) out.set(key, group);
    }
    return out;
  }

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
      this.store.navigation.namespacesWithLevel(me.id, ACCESS_LEVELS.owner),
    ]);
    const all: NamespaceView[] = [];
    const users = viewer.admin ? await this.store.navigation.allUsers(undefined) : [];
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
  async groups(
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
      this.store.navigation.readableNamespaces(viewer),
    ]);
    let level: number | undefined;
    if (viewer && q.owned) level = ACCESS_LEVELS.owner;
    if (viewer && q.minAccessLevel !== undefined) level = Math.max(level ?? 0, q.minAccessLevel);
    const withLevel =
      viewer && level !== undefined
        ? await this.store.navigation.namespacesWithLevel(viewer.userId, level)
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
  async group(
    idOrPath: string,
    viewer: Viewer | null,
  ): Promise<{ group: GroupView; projects: ListedProject[] }> {
    const group = await this.readableGroup(idOrPath, viewer, 'Group');
    const rows = await this.store.navigation.projects({
      viewer,
      namespace: group.fullPath,
      orderBy: 'id',
      sort: 'asc',
      offset: 0,
      limit: 100,
    });
    return { group, projects: await this.projectDetails(rows, viewer) };
  }

  /** `GET /groups/:id/projects`: its own projects, or its subgroups' too (`include_subgroups`). */
  async groupProjects(
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
    return this.listProjects(p, viewer, slice, scope, me);
  }

  private async readableGroup(
    idOrPath: string,
    viewer: Viewer | null,
    resource: 'Group' | 'Namespace',
  ): Promise<GroupView> {
    const [groups, readable] = await Promise.all([
      allGroups(this.store),
      this.store.navigation.readableNamespaces(viewer),
    ]);
    const group = findGroup(groups, idOrPath);
    if (!group || !groupReadable(group, readable, viewer)) throw new NotFoundError(resource);
    return group;
  }

  /** `GET /issues`: across every project the viewer can read, confidential ones as GitLab shows them. */
  async issues(
    p: TrackedListParams,
    viewer: Viewer | null,
    slice: Slice,
  ): Promise<Listed<IssueDetail>> {
    const query = this.trackedQuery(p, viewer, slice);
    if (!query) return { items: [], total: 0 };
    const [rows, total] = await Promise.all([
      this.store.navigation.issues(query),
      this.store.navigation.countIssues(query),
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
      this.store.navigation.mergeRequests(query),
      this.store.navigation.countMergeRequests(query),
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
