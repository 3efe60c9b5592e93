/**
 * The reads clients use to reach the events: users, projects, namespaces and groups, issues and
 * merge requests across projects. One call per route; each applies the viewer's visibility in its
 * query (store/navigation) and hands back views.
 */
import type { Store } from '../../store/store.js';
import { GroupDirectory } from './groups.js';
import { ProjectDirectory } from './projects.js';
import { TrackedAcross } from './tracked.js';
import { UserDirectory } from './users.js';

export type { GroupView, NamespaceView, UserNamespaceView } from './namespaces.js';
export type * from './lists.js';

export class NavigationService {
  /** `GET /users/:id`, `GET /users`. */
  readonly users: UserDirectory;
  /** `GET /projects`, `/users/:id/projects`, `/users/:id/contributed_projects`. */
  readonly projects: ProjectDirectory;
  /** `GET /namespaces`, `/namespaces/:id`, `/groups`, `/groups/:id`, `/groups/:id/projects`. */
  readonly groups: GroupDirectory;
  /** `GET /issues`, `GET /merge_requests`. */
  readonly tracked: TrackedAcross;

  constructor(store: Store) {
    this.users = new UserDirectory(store);
    this.projects = new ProjectDirectory(store, this.users);
    this.groups = new GroupDirectory(store, this.projects);
    this.tracked = new TrackedAcross(store);
  }
}
