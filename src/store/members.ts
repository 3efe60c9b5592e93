/** Project memberships: who is in a project, at which level, until when. */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from './database.js';
import { countRows } from './listing-sql.js';
import { activeOn } from './membership-sql.js';
import { deleteBy, rowBy } from './rows.js';
import type { Database, MemberRow } from './schema.js';

export class MemberStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect = 'sqlite',
  ) {}

  /**
   * Holds the project's row for the rest of the transaction (PostgreSQL; SQLite runs one write
   * transaction at a time): two removals of its Owners then count each other's outcome, never
   * both the other as still there.
   */
  async lockProject(projectId: number): Promise<void> {
    if (this.dialect === 'postgres') {
      await sql`SELECT id FROM projects WHERE id = ${projectId} FOR UPDATE`.execute(this.db);
    }
  }

  /** Owners of the project other than `userId` whose membership is active on `day`. */
  otherOwners(projectId: number, userId: number, ownerLevel: number, day: string) {
    return countRows(
      this.db
        .selectFrom('project_members')
        .where('project_id', '=', projectId)
        .where('user_id', '<>', userId)
        .where('access_level', '>=', ownerLevel)
        .where(activeOn('expires_at', day)),
    );
  }

  get(projectId: number, userId: number): Promise<MemberRow | undefined> {
    return rowBy(this.db, 'project_members', { project_id: projectId, user_id: userId });
  }

  async add(row: MemberRow): Promise<MemberRow> {
    await this.db.insertInto('project_members').values(row).execute();
    return row;
  }

  /** Removes a membership; false when there was none (another request removed it first). */
  async remove(projectId: number, userId: number): Promise<boolean> {
    return (
      (await deleteBy(this.db, 'project_members', { project_id: projectId, user_id: userId })) > 0
    );
  }

  list(projectId: number, offset: number, limit: number): Promise<MemberRow[]> {
    return this.db
      .selectFrom('project_members')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('user_id')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  count(projectId: number): Promise<number> {
    return countRows(this.db.selectFrom('project_members').where('project_id', '=', projectId));
  }

  /**
   * Memberships that have expired by `today` (YYYY-MM-DD: an expiry day on or before it, see
   * domain/membership-expiry), oldest expiry first.
   */
  expiring(today: string, limit: number): Promise<MemberRow[]> {
    return this.db
      .selectFrom('project_members')
      .selectAll()
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', today)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
  }

  /**
   * Ends one expired membership, unless it changed meanwhile (renewed, removed, or ended by
   * another process running the same job): true for exactly one caller.
   */
  async removeExpired(row: MemberRow): Promise<boolean> {
    const { project_id, user_id, expires_at } = row;
    return (await deleteBy(this.db, 'project_members', { project_id, user_id, expires_at })) > 0;
  }
}
