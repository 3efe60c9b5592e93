/** Project listings: everything readable, a user's, a user's contributions, a group's. */
import { NotAllowedError } from '../../domain/errors.js';
import { type Viewer, canReadUserProfile } from '../../domain/visibility.js';
import type { ProjectQuery } from '../../store/navigation.js';
import type { ProjectRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { type UserView, projectView, userView } from '../views.js';
import type { Listed, ListedProject, ProjectListParams, Slice } from './lists.js';
import { type NamespaceView, allGroups } from './namespaces.js';
import type { UserDirectory } from './users.js';

const KEYSET_UNAVAILABLE = 'Keyset pagination is not yet available for this type of request';

/** Which projects a listing covers, before the viewer's filters. */
export type ProjectScope = Pick<
  ProjectQuery,
  'namespace' | 'namespaceTree' | 'contributor' | 'starredBy'
>;

/** Which of a user's project lists: in their namespace, contributed to, starred. */
export type UserProjects = 'own' | 'contributed' | 'starred';

export class ProjectDirectory {
  constructor(
    private readonly store: Store,
    private readonly users: UserDirectory,
  ) {}

  /** `GET /projects`. */
  all(p: ProjectListParams, viewer: Viewer | null, slice: Slice, user?: UserView) {
    return this.list(p, viewer, slice, {}, user);
  }

  /**
   * A user's projects (`GET /users/:id/projects`, the ones in their own namespace), those they
   * wrote an event in (`contributed_projects`) or starred (`starred_projects`), that the viewer
   * can read. Contributions and stars are nothing for a profile the viewer may not read (private
   * or blocked), as GitLab's finders answer.
   */
  async ofUser(
    whose: UserProjects,
    idOrUsername: string,
    p: ProjectListParams,
    viewer: Viewer | null,
    slice: Slice,
    me?: UserView,
  ): Promise<Listed<ListedProject>> {
    const owner = await this.users.byIdOrUsername(idOrUsername);
    if (whose === 'own') return this.list(p, viewer, slice, { namespace: owner.username }, me);
    if (!canReadUserProfile(owner, viewer)) return { items: [], total: 0, nextId: null };
    const scope = whose === 'starred' ? { starredBy: [owner.id] } : { contributor: owner.id };
    return this.list(p, viewer, slice, scope, me);
  }

  /** One page of the projects in `scope` the viewer can read, filtered as asked. */
  async list(
    p: ProjectListParams,
    viewer: Viewer | null,
    slice: Slice,
    scope: ProjectScope,
    me?: UserView,
  ): Promise<Listed<ListedProject>> {
    if (p.keyset && p.orderBy !== 'id') throw new NotAllowedError(KEYSET_UNAVAILABLE);
    const signedIn = viewer !== null && me !== undefined;
    const query: ProjectQuery = {
      viewer,
      ...scope,
      // GitLab's ProjectsFinder: `starred` narrows to the caller's stars; anonymous, it is ignored.
      starredBy: [...(scope.starredBy ?? []), ...(signedIn && p.starred ? [me.id] : [])],
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
      const rows = await this.store.navigation.projects.list(query);
      const page = rows.slice(0, slice.limit);
      const more = rows.length > slice.limit;
      return {
        items: await this.details(page, viewer),
        total: null,
        nextId: more ? page[page.length - 1]!.id : null,
      };
    }
    const [rows, total] = await Promise.all([
      this.store.navigation.projects.list(query),
      this.store.navigation.projects.count(query),
    ]);
    return { items: await this.details(rows, viewer), total };
  }

  /** Projects with the viewer's access level and their namespaces. */
  async details(rows: ProjectRow[], viewer: Viewer | null): Promise<ListedProject[]> {
    const [levels, namespaces, stars] = await Promise.all([
      viewer
        ? this.store.projects.accessLevels(
            viewer.userId,
            rows.map((r) => r.id),
          )
        : new Map<number, number>(),
      this.namespacesOf(rows.map((r) => r.namespace)),
      this.store.stars.counts(rows.map((r) => r.id)),
    ]);
    return rows.map((row) => ({
      project: projectView(row),
      accessLevel: levels.get(row.id) ?? null,
      starCount: stars.get(row.id) ?? 0,
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
      this.store.navigation.users.byUsernames(single),
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
}
