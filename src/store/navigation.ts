/**
 * The listings clients use to find their way to the events: projects and the namespaces they live
 * in, users, and issues and merge requests across projects. Visibility is applied inside each
 * query (the rules of domain/visibility, as the event listings apply them), so pages are full and
 * totals exact.
 */
import type { Kysely } from 'kysely';
import type { Viewer } from '../domain/visibility.js';
import type { Dialect } from './database.js';
import { ProjectListing } from './project-listing.js';
import type { Database } from './schema.js';
import { TrackedListing } from './tracked-listing.js';
import { UserListing } from './user-listing.js';

export interface ProjectQuery {
  viewer: Viewer | null;
  /** Projects the viewer is a member of (at `minAccessLevel` or above when given). */
  membership?: boolean | undefined;
  minAccessLevel?: number | undefined;
  /** Projects the viewer owns: in their own namespace, or where they are an Owner. */
  owned?: { userId: number; username: string } | undefined;
  search?: string | undefined;
  visibility?: string | undefined;
  /** Exactly this namespace (a user's projects, a group's own projects), case-insensitively. */
  namespace?: string | undefined;
  /** This namespace and every namespace below it (a group with its subgroups). */
  namespaceTree?: string | undefined;
  /** Projects in which this user wrote an event (contributed projects). */
  contributor?: number | undefined;
  /** Projects each of these users starred (the listed user's, and the caller's with `starred`). */
  starredBy?: number[] | undefined;
  idAfter?: number | undefined;
  idBefore?: number | undefined;
  orderBy: ProjectOrder;
  sort: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export type ProjectOrder =
  'id' | 'name' | 'path' | 'created_at' | 'last_activity_at' | 'star_count';

export interface UserQuery {
  username?: string | undefined;
  search?: string | undefined;
  includeBlocked: boolean;
  offset: number;
  limit: number;
}

export interface TrackedAcrossQuery {
  viewer: Viewer | null;
  authorId?: number | undefined;
  state?: string | undefined;
  search?: string | undefined;
  orderBy: 'created_at' | 'updated_at' | 'title';
  sort: 'asc' | 'desc';
  offset: number;
  limit: number;
}

/** A namespace projects live in: its path as first stored, its first project, its openness. */
export interface NamespaceRow {
  namespace: string;
  first_project_id: number;
  /** The most open visibility among its projects (GitLab: a group is at least that open). */
  public_count: number;
  internal_count: number;
}

export class NavigationStore {
  readonly projects: ProjectListing;
  readonly users: UserListing;
  readonly tracked: TrackedListing;

  constructor(db: Kysely<Database>, dialect: Dialect) {
    this.projects = new ProjectListing(db, dialect);
    this.users = new UserListing(db);
    this.tracked = new TrackedListing(db, dialect);
  }
}
