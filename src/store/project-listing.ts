/**
 * Project listings and the namespaces projects live in, with visibility applied inside each
 * query, so pages are full and totals exact.
 */
import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Viewer } from '../domain/visibility.js';
import { ACCESS_LEVELS } from '../domain/vocabulary.js';
import type { Dialect } from './database.js';
import {
  type ProjectsEb,
  contains,
  countRows,
  escapeLike,
  readableProject,
  textOrder,
} from './listing-sql.js';
import type { NamespaceRow, ProjectQuery } from './navigation.js';
import type { Database, ProjectRow } from './schema.js';

export class ProjectListing {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  private filteredProjects(q: ProjectQuery) {
    let query = this.db
      .selectFrom('projects as p')
      .where((eb) => readableProject(eb as unknown as ProjectsEb, q.viewer));
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
              .where('om.access_level', '>=', ACCESS_LEVELS.owner),
          ),
        ]),
      );
    }
    if (q.search) {
      const text = q.search;
      query = query.where((eb) =>
        eb.or([
          contains('p.name', text),
          contains('p.path', text),
          contains('p.description', text),
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
          sql<SqlBool>`lower(p.namespace) like ${`${escapeLike(tree)}/%`} escape '\\'`,
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
    for (const user of q.starredBy ?? []) {
      query = query.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('project_stars as ps')
            .select('ps.user_id')
            .where('ps.user_id', '=', user)
            .whereRef('ps.project_id', '=', 'p.id'),
        ),
      );
    }
    if (q.idAfter !== undefined) query = query.where('p.id', '>', q.idAfter);
    if (q.idBefore !== undefined) query = query.where('p.id', '<', q.idBefore);
    return query;
  }

  /** One page of projects; `limit + 1` may be asked for to learn whether a next page exists. */
  list(q: ProjectQuery): Promise<ProjectRow[]> {
    const column =
      q.orderBy === 'last_activity_at'
        ? sql`coalesce(p.last_activity_at, p.created_at)`
        : q.orderBy === 'star_count'
          ? sql`(select count(*) from project_stars sc where sc.project_id = p.id)`
          : q.orderBy === 'name' || q.orderBy === 'path'
            ? textOrder(this.dialect, `p.${q.orderBy}`)
            : sql.ref(`p.${q.orderBy}`);
    return this.filteredProjects(q)
      .selectAll('p')
      .orderBy(column, q.sort)
      .orderBy('p.id', q.sort)
      .limit(q.limit)
      .offset(q.offset)
      .execute();
  }

  count(q: ProjectQuery): Promise<number> {
    return countRows(this.filteredProjects(q));
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
      .where((eb) => readableProject(eb as unknown as ProjectsEb, viewer))
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
}
