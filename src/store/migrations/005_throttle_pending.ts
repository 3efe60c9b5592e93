/**
 * Attempts in flight: a password or client secret is counted (reserved) before it is verified, so
 * parallel guesses cannot all pass the limit; `pending` holds those not yet settled.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('auth_throttle')
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
