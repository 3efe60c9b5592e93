/**
 * When a hook may be tried again. A failing hook is retried as a whole: its deliveries wait until
 * `retry_at` (a few seconds after a first failure, the end of the temporary disable after the
 * fourth), then go together, and the failures of attempts that started before it count as one
 * step of the back-off, so a queue of deliveries failing at once during an outage is one failure,
 * not one each.
 *
 * A delivery asked for by hand (a test, a resend) is `manual`: it goes at once, even to a disabled
 * hook (GitLab: a successful test re-enables a hook), and follows the hook if it fails.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('project_hooks').addColumn('retry_at', 'bigint').execute();
  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('manual', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
