import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

export interface MigrationContext {
  dialect: Dialect;
}

/** An auto-incrementing integer key that still accepts explicit ids (imports keep theirs). */
export function idColumn(ctx: MigrationContext) {
  // SQLite: INTEGER PRIMARY KEY is the rowid alias. PostgreSQL: a serial column; after an import
  // with explicit ids the store moves the sequence past the highest id.
  return ctx.dialect === 'sqlite' ? sql`integer` : sql`serial`;
}

/**
 * `CREATE [UNIQUE] INDEX name ON table (columns)`, the plain index most tables carry. Applied
 * migrations use it, so what it emits must never change.
 */
export async function createIndex(
  db: Kysely<unknown>,
  name: string,
  table: string,
  columns: string[],
  options: { unique?: boolean } = {},
): Promise<void> {
  const index = db.schema.createIndex(name).on(table).columns(columns);
  await (options.unique ? index.unique() : index).execute();
}

/**
 * One statement written out in full (functions, triggers, partial indexes), run as it stands.
 * Applied migrations use it, so what it runs must never change.
 */
export async function runSql(db: Kysely<unknown>, statement: string): Promise<void> {
  await sql.raw(statement).execute(db);
}

/** `CREATE TABLE name` keyed by an `id` (see idColumn); the caller adds the other columns. */
export function tableWithId(db: Kysely<unknown>, ctx: MigrationContext, name: string) {
  return db.schema.createTable(name).addColumn('id', idColumn(ctx), (c) => c.primaryKey());
}
