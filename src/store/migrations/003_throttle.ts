/**
 * Failed-attempt counters for sign-in, the password grant and client authentication, in the
 * database so every pulsegate process over one database shares one budget.
 */
import type { Kysely } from 'kysely';
import { createIndex } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('auth_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(db, 'auth_throttle_window', 'auth_throttle', ['window_start']);
}
