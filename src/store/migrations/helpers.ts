import { sql } from 'kysely';
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
