/**
 * Per-project internal ids (`iid`): 1, 2, 3… for issues, merge requests and milestones. Concurrent
 * writers must get distinct consecutive values: on PostgreSQL the project's row is locked for the
 * rest of the transaction (writers to other projects do not wait); SQLite runs one write
 * transaction at a time, so the maximum is already exclusive.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from './database.js';
import type { Database } from './schema.js';

export type IidTable = 'issues' | 'merge_requests' | 'milestones';

export async function nextIid(
  db: Kysely<Database>,
  dialect: Dialect,
  table: IidTable,
  projectId: number,
): Promise<number> {
  if (dialect === 'postgres') {
    await sql`SELECT id FROM projects WHERE id = ${projectId} FOR UPDATE`.execute(db);
  }
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.max('iid').as('iid'))
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.iid ?? 0) + 1;
}
