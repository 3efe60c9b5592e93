/** What the navigation reads hand to the faces, and the parameters they take. */
import type { ProjectOrder } from '../../store/navigation.js';
import type { ProjectDetail } from '../content/projects.js';
import type { UserView } from '../views.js';
import type { NamespaceView } from './namespaces.js';

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
  orderBy: 'created_at' | 'updated_at' | 'title';
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
  /** Follow counts, when the profile is readable (GitLab shows them only then). */
  follows: FollowCounts | null;
}

/** How many follow the user and whom they follow; whether the (signed-in) viewer follows them. */
export interface FollowCounts {
  followers: number;
  following: number;
  /** Null for anonymous viewers. */
  isFollowed: boolean | null;
}
