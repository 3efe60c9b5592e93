/**
 * Stars (migration 024): who starred which project. Adding and removing are single statements
 * that say whether they changed anything, so two requests starring at once make one star and one
 * "already starred".
 */
import type { Kysely } from 'kysely';
import type { Viewer } from '../domain/visibility.js';
import { contains, countRows } from './listing-sql.js';
import { deleteBy, hasRow, insertOnce } from './rows.js';
import type { Database, UserRow } from './schema.js';

/** Who starred a project, filtered as `GET /projects/:id/starrers` filters. */
export interface StarrerQuery {
  projectId: number;
  /** Part of a username or name, case-insensitively. */
  search?: string | undefined;
  /** Private and blocked profiles are listed only to themselves and administrators. */
  viewer: Viewer | null;
  offset: number;
  limit: number;
}

export interface Starrer {
  user: UserRow;
  starredAt: number;
}

export class StarStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Stars the project for the user; false when it was starred already. */
  add(userId: number, projectId: number, now: number): Promise<boolean> {
    const row = { user_id: userId, project_id: projectId, created_at: now };
    return insertOnce(this.db, 'project_stars', row, ['user_id', 'project_id']);
  }

  /** Removes the user's star; false when there was none. */
  async remove(userId: number, projectId: number): Promise<boolean> {
    return (
      (await deleteBy(this.db, 'project_stars', { user_id: userId, project_id: projectId })) > 0
    );
  }

  has(userId: number, projectId: number): Promise<boolean> {
    return hasRow(this.db, 'project_stars', { user_id: userId, project_id: projectId });
  }

  /** Star counts by project id (projects nobody starred are absent: 0). */
  async counts(projectIds: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (projectIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('project_stars')
      .select((eb) => ['project_id', eb.fn.countAll<number>().as('n')])
      .where('project_id', 'in', [...new Set(projectIds)])
      .groupBy('project_id')
      .execute();
    for (const row of rows) out.set(row.project_id, Number(row.n));
    return out;
  }

  private filteredStarrers(q: StarrerQuery) {
    let query = this.db
      .selectFrom('project_stars as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .where('s.project_id', '=', q.projectId);
    const viewer = q.viewer;
    if (!viewer?.admin) {
      query = query.where((eb) => {
        const open = eb.and([eb('u.state', '=', 'active'), eb('u.private_profile', '=', 0)]);
        return viewer ? eb.or([open, eb('u.id', '=', viewer.userId)]) : open;
      });
    }
    if (q.search) {
      const text = q.search;
      query = query.where((eb) => eb.or([contains('u.username', text), contains('u.name', text)]));
    }
    return query;
  }

  /** One page of a project's starrers, in the order they starred it (GitLab: by star id). */
  async starrers(q: StarrerQuery): Promise<Starrer[]> {
    const rows = await this.filteredStarrers(q)
      .selectAll('u')
      .select('s.created_at as starred_at')
      .orderBy('s.created_at')
      .orderBy('s.user_id')
      .limit(q.limit)
      .offset(q.offset)
      .execute();
    return rows.map(({ starred_at, ...user }) => ({
      user: user as UserRow,
      starredAt: Number(starred_at),
    }));
  }

  countStarrers(q: StarrerQuery): Promise<number> {
    return countRows(this.filteredStarrers(q));
  }
}
