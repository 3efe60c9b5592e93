/**
 * Change counters (migration 015) for stars and follows: a starred or followed listing reads its
 * user's readable set with every request (store/events/social.ts), and that read joined hundreds
 * of stars with their projects each time. With the counters, the set is kept until a star, a
 * follow, a project, a membership or a user changes (store/row-cache). Listings are not touched:
 * the set stays part of their key and mark, so a star still changes them at once, and nothing else.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './helpers.js';
import { countChanges } from './015_row_versions.js';

const TABLES = ['project_stars', 'user_follows'] as const;

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  for (const table of TABLES) await countChanges(db, ctx, table);
}
