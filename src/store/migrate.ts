/** Applies pending code migrations with Kysely's Migrator (which locks and records them). */
import {
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from 'kysely';
import type { Connection } from './database.js';
import { MIGRATIONS } from './migrations/index.js';

export interface MigrationReport {
  applied: string[];
}

/** Kysely's migrator over our code migrations, its bookkeeping pinned to the connection's schema. */
async function migratorFor(conn: Connection): Promise<Migrator> {
  const ctx = { dialect: conn.dialect };
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const m of MIGRATIONS) {
        out[m.name] = { up: (db: Kysely<unknown>) => m.up(db, ctx) };
      }
      return out;
    },
  };
  // Kysely looks for its bookkeeping tables in EVERY schema unless told which one: with another
  // schema holding them (parallel test runs, several instances on one server) it skips creating
  // them here and then fails. Pin them to the connection's own schema.
  const schema =
    conn.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(conn.db)).rows[0]
          ?.schema
      : undefined;
  return new Migrator({
    db: conn.db,
    provider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

/** The names of the code migrations this database has not applied yet (oldest first). */
export async function pendingMigrations(conn: Connection): Promise<string[]> {
  // Read the bookkeeping table directly rather than through `Migrator.getMigrations`: that first
  // introspects the catalog of every schema on the server, which fails when another instance drops
  // its schema at that moment (parallel test runs do), and readiness probes ask this often.
  let applied: Set<string>;
  try {
    const rows = await sql<{
      name: string;
    }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(conn.db);
    applied = new Set(rows.rows.map((r) => r.name));
  } catch (error) {
    if (!isMissingTable(error)) throw error;
    applied = new Set();
  }
  return MIGRATIONS.map((m) => m.name).filter((name) => !applied.has(name));
}

/** The bookkeeping table is not there yet: a database never migrated. */
function isMissingTable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '42P01' || (code === 'SQLITE_ERROR' && /no such table/.test(String(message)));
}

export async function migrate(conn: Connection): Promise<MigrationReport> {
  const migrator = await migratorFor(conn);
  let outcome = await migrator.migrateToLatest();
  // Kysely's PostgreSQL introspection reads the catalog of every schema; a schema dropped by
  // someone else at that instant (parallel test runs do this) fails it with 3F000, with 42P01
  // when one of its tables goes first, or with 42703 when a column goes first. Nothing was applied then (the migrator checks before it
  // locks), and a migration failing so rolled back, so trying again is safe.
  for (let attempt = 1; attempt < 4 && isVanishedSchema(outcome.error); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    outcome = await migrator.migrateToLatest();
  }
  const { error, results } = outcome;
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return {
    applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
  };
}

function isVanishedSchema(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : 0;
  return code === '3F000' || code === '42P01' || code === '42703';
}
