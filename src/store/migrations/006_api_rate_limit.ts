/**
 * API request counters (the rate limit), one row per budget key and window, shared by every
 * process over the database. PostgreSQL keeps them in this UNLOGGED table (no WAL: counters need no
 * crash durability). On SQLite they live in a sidecar file instead (see store/request-counters.ts),
 * because a write to the database itself would drop every cache keyed on its data version.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, createIndex } from './helpers.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  await db.schema
    .createTable('api_rate_limit')
    .modifyFront(sql`unlogged`)
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(db, 'api_rate_limit_window', 'api_rate_limit', ['window_start']);
}
