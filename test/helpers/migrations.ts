/** A database as an older release left it: only the first code migrations applied. */
import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from 'kysely';
import type { Connection } from '../../src/store/database.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';

/** The position of a code migration by name (what `applyFirst` counts in). */
export function migrationIndex(name: string): number {
  return MIGRATIONS.findIndex((m) => m.name === name);
}

/**
 * Applies the first `count` code migrations (those not applied yet), with Kysely's bookkeeping in
 * the connection's own schema as the server keeps it.
 */
export async function applyFirst(conn: Connection, count: number): Promise<MigrationResultSet> {
  const db = conn.db as unknown as Kysely<unknown>;
  const migrations: Record<string, Migration> = {};
  for (const m of MIGRATIONS.slice(0, count)) {
    migrations[m.name] = { up: (kdb: Kysely<unknown>) => m.up(kdb, { dialect: conn.dialect }) };
  }
  const schema =
    conn.dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s
      : undefined;
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  }).migrateToLatest();
}
