import { type Insertable, type Kysely, sql } from 'kysely';
import { activeLevel, membershipDay } from '../domain/membership-expiry.js';
import { activeOn } from './membership-sql.js';
import { RowCache, type RowVersion } from './row-cache.js';
import { RowsById, rowByFolded } from './rows.js';
import type { Database, ProjectRow, ProjectsTable } from './schema.js';
import { matchesNoRow } from './text.js';

export class ProjectStore extends RowsById<'projects'> {
  private readonly levels: RowCache<
    string,
    { accessLevel: number; expiresAt: string | null } | null
  >;

  constructor(
    private readonly db: Kysely<Database>,
    projectsVersion: RowVersion = () => null,
    membersVersion: RowVersion = () => null,
    /** Where its reads by key run: `Connection.prepared`. */
    reads: Kysely<Database> = db,
  ) {
    super(reads, 'projects', projectsVersion);
    this.levels = new RowCache(membersVersion);
  }

  /** Case-insensitive full path (`group/sub/project`). */
  byFullPath(fullPath: string): Promise<ProjectRow | undefined> {
    return rowByFolded(this.reads, 'projects', 'full_path', fullPath);
  }

  /** The first `limit` public projects by id (the server's warm-up reads their listings). */
  async publicIds(limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('projects')
      .select('id')
      .where('visibility', '=', 'public')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  async create(values: Insertable<ProjectsTable>): Promise<ProjectRow> {
    return this.db.insertInto('projects').values(values).returningAll().executeTakeFirstOrThrow();
  }

  /** Whether the user owns (access level ≥ `level`, active on `day`) some project in this namespace. */
  async hasLevelInNamespace(
    userId: number,
    namespace: string,
    level: number,
    day: string,
  ): Promise<boolean> {
    if (matchesNoRow(namespace)) return false;
    const row = await this.db
      .selectFrom('projects as p')
      .innerJoin('project_members as m', 'm.project_id', 'p.id')
      .select('p.id')
      .where(sql`lower(p.namespace)`, '=', namespace.toLowerCase())
      .where('m.user_id', '=', userId)
      .where('m.access_level', '>=', level)
      .where(activeOn('m.expires_at', day))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The user's access level in the project on `day` (YYYY-MM-DD, UTC): null for non-members and
   * for a membership that has expired (domain/membership-expiry), whether or not the job has
   * removed it yet. The cache keeps the membership; the day is judged on every read.
   */
  async accessLevel(
    projectId: number,
    userId: number,
    day: string = membershipDay(Date.now()),
  ): Promise<number | null> {
    const member = await this.levels.get(`${projectId}:${userId}`, async () => {
      const row = await this.reads
        .selectFrom('project_members')
        .select(['access_level', 'expires_at'])
        .where('project_id', '=', projectId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row ? { accessLevel: row.access_level, expiresAt: row.expires_at } : null;
    });
    return activeLevel(member, day);
  }

  /** Access levels of one user in many projects (for per-request batching). */
  async accessLevels(
    userId: number,
    projectIds: readonly number[],
    day: string = membershipDay(Date.now()),
  ): Promise<Map<number, number>> {
    if (projectIds.length === 0) return new Map();
    const rows = await this.reads
      .selectFrom('project_members')
      .select(['project_id', 'access_level'])
      .where('user_id', '=', userId)
      .where('project_id', 'in', [...projectIds])
      .where(activeOn('expires_at', day))
      .execute();
    return new Map(rows.map((r) => [r.project_id, r.access_level]));
  }
}
