/** Applies pending code migrations with Kysely's Migrator (which locks and records them). */
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Connection } from './database.js';
import { MIGRATIONS } from './migrations/index.js';

export interface MigrationReport {
  applied: string[];
}

export async function migrate(conn: Connection): Promise<MigrationReport> {
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
  const migrator = new Migrator({ db: conn.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return {
    applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
  };
}
