/**
 * Failed-attempt counters for sign-in, the password grant and client authentication, in the
 * database so every pulsegate process over one database shares one budget.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('auth_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('auth_throttle_window')
    .on('auth_throttle')
    .column('window_start')
    .execute();
}
