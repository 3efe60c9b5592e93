/**
 * What the contribution calendar needs and what retention reads.
 *
 * - `users.timezone`: the IANA zone the user's calendar counts days in (GitLab's user `timezone`,
 *   UTC by default), and `users.include_private_contributions`: the user's "Include private
 *   contributions on my profile" (off by default, as GitLab's).
 * - `events_created_at`: retention (store/events/prune.ts) deletes the oldest events a batch at a
 *   time; without an index on the time every batch, and every run that finds nothing to delete,
 *   would read the whole table. The id is in the index so a batch is taken in one order on both
 *   databases.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('include_private_contributions', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`CREATE INDEX events_created_at ON events (created_at, id)`.execute(db);
}
