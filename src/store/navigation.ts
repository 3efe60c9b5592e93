/**
 * The listings clients use to find their way to the events: projects, users, the namespaces
 * projects live in, and issues and merge requests across projects. Visibility is applied inside
 * each query (the rules of domain/visibility, as the event listings apply them), so pages are full
 * and totals exact.
 */
import { type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import { CONFIDENTIAL_MIN_ACCESS, type Viewer } from '../domain/visibility.js';
import { MERGE_REQUEST_PRIVATE_MIN_ACCESS } from '../domain/navigation.js';
import type { Dialect } from './database.js';
import type { Database, IssueRow, MergeRequestRow, ProjectRow, UserRow } from './schema.js';

/** What `GET /projects` and its relatives filter on; every field optional but the viewer's. */
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
  idAfter?: number | undefined;
  idBefore?: number | undefined;
  orderBy: ProjectOrder;
  sort: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export type ProjectOrder = 'id' | 'name' | 'path' | 'created_at' | 'last_activity_at';

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
  orderBy: 'created_at' | 'updated_at';
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

/** `%`, `_` and the escape character itself match literally in a LIKE pattern built from text. */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

type Eb<T extends keyof Database> = ExpressionBuilder<Database & { p: Database[T] }, 'p'>;

export class NavigationStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Text in one order on both dialects: case-folded, then by code point (PostgreSQL would
   * otherwise follow the database's locale, which ignores spaces and punctuation).
   */
  private textOrder(column: string) {
    const folded = sql`lower(${sql.ref(column)})`;
    return this.dialect === 'postgres' ? sql`${folded} collate "C"` : folded;
  }

  /** `lower(column) LIKE '%text%'`, the same on both dialects. */
  private contains(column: string, text: string) {
    return sql<SqlBool>`lower(${sql.ref(column)}) like ${containsPattern(text)} escape '\\'`;
  }

  /** read_project in SQL: public to all, internal to signed-in users, private to members. */
  private readableProject(eb: Eb<'projects'>, viewer: Viewer | null, alias = 'p') {
    if (viewer?.admin) return sql<SqlBool>`1 = 1`;
    const visibility = sql.ref(`${alias}.visibility`);
    if (!viewer) return eb(visibility, '=', 'public');
    return eb.or([
      eb(visibility, 'in', ['public', 'internal']),
      eb.exists(
        eb
          .selectFrom('project_members as vm')
          .select('vm.user_id')
          .whereRef('vm.project_id', '=', sql.ref(`${alias}.id`))
          .where('vm.user_id', '=', viewer.userId),
      ),
    ]);
  }

  private filteredProjects(q: ProjectQuery) {
    let query = this.db
      .selectFrom('projects as p')
      .where((eb) => this.readableProject(eb as unknown as Eb<'projects'>, q.viewer));
    const viewerId = q.viewer?.userId;
    if ((q.membership || q.minAccessLevel !== undefined) && viewerId !== undefined) {
      const level = q.minAccessLevel ?? 0;
      query = query.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('project_members as mm')
            .select('mm.user_id')
            .whereRef('mm.project_id', '=', 'p.id')
            .where('mm.user_id', '=', viewerId)
            .where('mm.access_level', '>=', level),
        ),
      );
    }
    if (q.owned) {
      const { userId, username } = q.owned;
      query = query.where((eb) =>
        eb.or([
          eb(sql`lower(p.namespace)`, '=', username.toLowerCase()),
          eb.exists(
            eb
              .selectFrom('project_members as om')
              .select('om.user_id')
              .whereRef('om.project_id', '=', 'p.id')
              .where('om.user_id', '=', userId)
              .where('om.access_level', '>=', 50),
          ),
        ]),
      );
    }
    if (q.search) {
      const text = q.search;
      query = query.where((eb) =>
        eb.or([
          this.contains('p.name', text),
          this.contains('p.path', text),
          this.contains('p.description', text),
        ]),
      );
    }
    if (q.visibility) query = query.where('p.visibility', '=', q.visibility);
    if (q.namespace !== undefined) {
      query = query.where(sql`lower(p.namespace)`, '=', q.namespace.toLowerCase());
    }
    if (q.namespaceTree !== undefined) {
      const tree = q.namespaceTree.toLowerCase();
      query = query.where((eb) =>
        eb.or([
          eb(sql`lower(p.namespace)`, '=', tree),
          sql<SqlBool>`lower(p.namespace) like ${`${tree.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`} escape '\\'`,
        ]),
      );
    }
    if (q.contributor !== undefined) {
      const author = q.contributor;
      query = query.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('events as ce')
            .select('ce.id')
            .whereRef('ce.project_id', '=', 'p.id')
            .where('ce.author_id', '=', author),
        ),
      );
    }
    if (q.idAfter !== undefined) query = query.where('p.id', '>', q.idAfter);
    if (q.idBefore !== undefined) query = query.where('p.id', '<', q.idBefore);
    return query;
  }

  /** One page of projects; `limit + 1` may be asked for to learn whether a next page exists. */
  projects(q: ProjectQuery): Promise<ProjectRow[]> {
    const column =
      q.orderBy === 'last_activity_at'
        ? sql`coalesce(p.last_activity_at, p.created_at)`
        : q.orderBy === 'name' || q.orderBy === 'path'
          ? this.textOrder(`p.${q.orderBy}`)
          : sql.ref(`p.${q.orderBy}`);
    return this.filteredProjects(q)
      .selectAll('p')
      .orderBy(column, q.sort)
      .orderBy('p.id', q.sort)
      .limit(q.limit)
      .offset(q.offset)
      .execute();
  }

  async countProjects(q: ProjectQuery): Promise<number> {
    const row = await this.filteredProjects(q)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private filteredUsers(q: UserQuery) {
    let query = this.db.selectFrom('users as u');
    if (!q.includeBlocked) query = query.where('u.state', '=', 'active');
    if (q.username !== undefined) {
      query = query.where(sql`lower(u.username)`, '=', q.username.toLowerCase());
    }
    if (q.search) {
      const text = q.search;
      query = query.where((eb) =>
        eb.or([this.contains('u.username', text), this.contains('u.name', text)]),
      );
    }
    return query;
  }

  /** Users by id, newest first (GitLab's default order for the users list). */
  users(q: UserQuery): Promise<UserRow[]> {
    return this.filteredUsers(q)
      .selectAll('u')
      .orderBy('u.id', 'desc')
      .limit(q.limit)
      .offset(q.offset)
      .execute();
  }

  async countUsers(q: UserQuery): Promise<number> {
    const row = await this.filteredUsers(q)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Every namespace that holds a project and is not a user's own (a user's namespace is their
   * username), with its first project and how open its projects are. Group ids and visibility are
   * derived from these, the same for every viewer.
   */
  async groupNamespaces(): Promise<NamespaceRow[]> {
    const rows = await this.db
      .selectFrom('projects as p')
      .leftJoin('users as u', (join) =>
        join.on(sql`lower(u.username)`, '=', sql`lower(p.namespace)`),
      )
      .where('u.id', 'is', null)
      .select((eb) => [
        sql<string>`lower(p.namespace)`.as('key'),
        eb.fn.min('p.namespace').as('namespace'),
        eb.fn.min('p.id').as('first_project_id'),
        eb.fn
          .sum<number>(sql`case when p.visibility = 'public' then 1 else 0 end`)
          .as('public_count'),
        eb.fn
          .sum<number>(sql`case when p.visibility = 'internal' then 1 else 0 end`)
          .as('internal_count'),
      ])
      .groupBy(sql`lower(p.namespace)`)
      .execute();
    return rows.map((r) => ({
      namespace: String(r.namespace),
      first_project_id: Number(r.first_project_id),
      public_count: Number(r.public_count),
      internal_count: Number(r.internal_count),
    }));
  }

  /** The namespaces (lower-cased) in which the viewer can read at least one project. */
  async readableNamespaces(viewer: Viewer | null): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('projects as p')
      .where((eb) => this.readableProject(eb as unknown as Eb<'projects'>, viewer))
      .select(sql<string>`lower(p.namespace)`.as('key'))
      .distinct()
      .execute();
    return new Set(rows.map((r) => r.key));
  }

  /** Namespaces (lower-cased) in which the user holds at least `level` in some project. */
  async namespacesWithLevel(userId: number, level: number): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('projects as p')
      .innerJoin('project_members as m', 'm.project_id', 'p.id')
      .where('m.user_id', '=', userId)
      .where('m.access_level', '>=', level)
      .select(sql<string>`lower(p.namespace)`.as('key'))
      .distinct()
      .execute();
    return new Set(rows.map((r) => r.key));
  }

  /** Users by username, case-insensitively (the owners of personal namespaces). */
  usersByUsernames(usernames: readonly string[]): Promise<UserRow[]> {
    if (usernames.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('users as u')
      .selectAll('u')
      .where(
        sql`lower(u.username)`,
        'in',
        usernames.map((u) => u.toLowerCase()),
      )
      .execute();
  }

  /** Every active user's namespace (an administrator may create projects in any of them). */
  allUsers(search: string | undefined): Promise<UserRow[]> {
    let query = this.db.selectFrom('users as u').selectAll('u');
    if (search) query = query.where(this.contains('u.username', search));
    return query.orderBy('u.id').execute();
  }

  private trackedAcross<T extends 'issues' | 'merge_requests'>(table: T, q: TrackedAcrossQuery) {
    const viewer = q.viewer;
    let query = this.db
      .selectFrom(`${table} as t` as 'issues as t')
      .innerJoin('projects as p', 'p.id', 't.project_id')
      .where((eb) => this.readableProject(eb as unknown as Eb<'projects'>, viewer));
    if (viewer && !viewer.admin) {
      const level = (eb: ExpressionBuilder<Database & { p: Database['projects'] }, 'p'>) =>
        eb
          .selectFrom('project_members as lm')
          .select('lm.access_level')
          .whereRef('lm.project_id', '=', 'p.id')
          .where('lm.user_id', '=', viewer.userId);
      if (table === 'issues') {
        // Confidential issues: Reporter and above, and the issue's author.
        query = query.where((eb) =>
          eb.or([
            eb('t.confidential', '=', 0),
            eb('t.author_id', '=', viewer.userId),
            eb(level(eb as never), '>=', CONFIDENTIAL_MIN_ACCESS),
          ]),
        );
      } else {
        // Merge requests of a private project: Reporter and above.
        query = query.where((eb) =>
          eb.or([
            eb('p.visibility', '<>', 'private'),
            eb(level(eb as never), '>=', MERGE_REQUEST_PRIVATE_MIN_ACCESS),
          ]),
        );
      }
    } else if (!viewer && table === 'issues') {
      query = query.where('t.confidential', '=', 0);
    }
    if (q.authorId !== undefined) query = query.where('t.author_id', '=', q.authorId);
    if (q.state) query = query.where('t.state', '=', q.state);
    if (q.search) {
      const text = q.search;
      query = query.where((eb) =>
        eb.or([this.contains('t.title', text), this.contains('t.description', text)]),
      );
    }
    return query;
  }

  async issues(q: TrackedAcrossQuery): Promise<IssueRow[]> {
    return (await this.trackedAcross('issues', q)
      .selectAll('t')
      .orderBy(`t.${q.orderBy}`, q.sort)
      .orderBy('t.id', q.sort)
      .limit(q.limit)
      .offset(q.offset)
      .execute()) as IssueRow[];
  }

  async countIssues(q: TrackedAcrossQuery): Promise<number> {
    const row = await this.trackedAcross('issues', q)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async mergeRequests(q: TrackedAcrossQuery): Promise<MergeRequestRow[]> {
    return (await this.trackedAcross('merge_requests', q)
      .selectAll('t')
      .orderBy(`t.${q.orderBy}`, q.sort)
      .orderBy('t.id', q.sort)
      .limit(q.limit)
      .offset(q.offset)
      .execute()) as unknown as MergeRequestRow[];
  }

  async countMergeRequests(q: TrackedAcrossQuery): Promise<number> {
    const row = await this.trackedAcross('merge_requests', q)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
