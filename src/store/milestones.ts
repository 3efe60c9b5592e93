/** Project milestones. */
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Dialect } from './database.js';
import { nextIid } from './iids.js';
import { countRows } from './listing-sql.js';
import type { Database, MilestoneRow, MilestonesTable } from './schema.js';

export interface MilestoneListQuery {
  projectId: number;
  state?: string | undefined;
  iids?: number[] | undefined;
  title?: string | undefined;
  offset: number;
  limit: number;
}

export class MilestoneStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async create(values: Omit<Insertable<MilestonesTable>, 'iid'>): Promise<MilestoneRow> {
    const iid = await nextIid(this.db, this.dialect, 'milestones', values.project_id);
    return this.db
      .insertInto('milestones')
      .values({ ...values, iid })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** By global id within a project (the REST API addresses milestones by `milestone_id`). */
  /** `lock`: the row lock on PostgreSQL, for a write that decides by the row (tracked.ts). */
  inProject(projectId: number, id: number, lock = false): Promise<MilestoneRow | undefined> {
    let query = this.db
      .selectFrom('milestones')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id);
    if (lock && this.dialect === 'postgres') query = query.forUpdate();
    return query.executeTakeFirst();
  }

  /** Titles are unique per project (GitLab validates it). */
  byTitle(projectId: number, title: string): Promise<MilestoneRow | undefined> {
    return this.db
      .selectFrom('milestones')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('title', '=', title)
      .executeTakeFirst();
  }

  update(id: number, patch: Updateable<MilestonesTable>): Promise<MilestoneRow> {
    return this.db
      .updateTable('milestones')
      .set(patch)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Changes the row only if it is still in `state`: undefined when another write moved it. */
  updateInState(
    id: number,
    state: string,
    patch: Updateable<MilestonesTable>,
  ): Promise<MilestoneRow | undefined> {
    return this.db
      .updateTable('milestones')
      .set(patch)
      .where('id', '=', id)
      .where('state', '=', state)
      .returningAll()
      .executeTakeFirst();
  }

  /** Deletes it; false when it was already gone (another request deleted it first). */
  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('milestones').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  private filtered(q: MilestoneListQuery) {
    let query = this.db.selectFrom('milestones').where('project_id', '=', q.projectId);
    if (q.state) query = query.where('state', '=', q.state);
    if (q.iids) query = query.where('iid', 'in', q.iids.length > 0 ? q.iids : [-1]);
    if (q.title !== undefined) query = query.where('title', '=', q.title);
    return query;
  }

  list(q: MilestoneListQuery): Promise<MilestoneRow[]> {
    return this.filtered(q)
      .selectAll()
      .orderBy('id', 'desc')
      .limit(q.limit)
      .offset(q.offset)
      .execute();
  }

  count(q: MilestoneListQuery): Promise<number> {
    return countRows(this.filtered(q));
  }
}
