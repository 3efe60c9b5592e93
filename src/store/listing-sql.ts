/**
 * SQL pieces the navigation listings share: the read_project rule (domain/visibility, as the event
 * listings apply it), a case-insensitive "contains", one text order on both dialects, and a
 * listing's total.
 */
import { type ExpressionBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Viewer } from '../domain/visibility.js';
import type { Dialect } from './database.js';
import type { Database } from './schema.js';

/** An expression builder over a query that has the projects table as `p`. */
export type ProjectsEb = ExpressionBuilder<Database & { p: Database['projects'] }, 'p'>;

/** `%`, `_` and the escape character itself match literally in a LIKE pattern built from text. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `lower(column) LIKE '%text%'`, the same on both dialects. */
export function contains(column: string, text: string) {
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${`%${escapeLike(text.toLowerCase())}%`} escape '\\'`;
}

/**
 * Text in one order on both dialects: case-folded, then by code point (PostgreSQL would
 * otherwise follow the database's locale, which ignores spaces and punctuation).
 */
export function textOrder(dialect: Dialect, column: string) {
  const folded = sql`lower(${sql.ref(column)})`;
  return dialect === 'postgres' ? sql`${folded} collate "C"` : folded;
}

/** read_project in SQL: public to all, internal to signed-in users, private to members. */
export function readableProject(eb: ProjectsEb, viewer: Viewer | null, alias = 'p') {
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

/** How many rows a listing's filtered query finds (its total, whatever page is shown). */
export async function countRows<DB, TB extends keyof DB>(
  query: SelectQueryBuilder<DB, TB, object>,
): Promise<number> {
  const row = (await query
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()) as { n: number | string };
  return Number(row.n);
}
