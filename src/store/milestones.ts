/** Project milestones, on the queries every numbered kind shares (numbered-rows.ts). */
import { type Kysely, expressionBuilder } from 'kysely';
import type { Dialect } from './database.js';
import { type NumberedListQuery, NumberedRows } from './numbered-rows.js';
import { deleteBy, rowBy } from './rows.js';
import type { Database, MilestoneRow } from './schema.js';

export interface MilestoneListQuery extends NumberedListQuery {
  title?: string | undefined;
}

export class MilestoneStore extends NumberedRows<'milestones'> {
  constructor(db: Kysely<Database>, dialect: Dialect) {
    super(db, dialect, 'milestones');
  }

  /**
   * By global id within a project (the REST API addresses milestones by `milestone_id`).
   * `lock`: the row lock on PostgreSQL, for a write that decides by the row.
   */
  inProject(projectId: number, id: number, lock = false) {
    return this.inProjectBy('id', projectId, id, lock);
  }

  /** Titles are unique per project (GitLab validates it). */
  byTitle(projectId: number, title: string): Promise<MilestoneRow | undefined> {
    return rowBy(this.db, 'milestones', { project_id: projectId, title });
  }

  /** Deletes it; false when it was already gone (another request deleted it first). */
  async delete(id: number): Promise<boolean> {
    return (await deleteBy(this.db, 'milestones', { id })) > 0;
  }

  protected override filtered(q: MilestoneListQuery) {
    if (q.title === undefined) return super.filtered(q);
    return super
      .filtered(q)
      .where(expressionBuilder<Database, 'milestones'>()('title', '=', q.title));
  }
}
