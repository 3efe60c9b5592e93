/**
 * Project webhooks (GitLab's project hooks) and their durable outbox: one delivery row per hook and
 * event, inserted in the event's own transaction, then claimed, sent and kept as the delivery log.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, createIndex, tableWithId } from './helpers.js';

const FLAGS = [
  'push_events',
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'note_events',
  'confidential_note_events',
  'member_events',
  'enable_ssl_verification',
] as const;

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  let hooks = tableWithId(db, ctx, 'project_hooks')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    // Sent verbatim as X-Gitlab-Token, so it is kept in clear (never returned by the API).
    .addColumn('token', 'text')
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''));
  for (const flag of FLAGS) {
    hooks = hooks.addColumn(flag, 'integer', (c) => c.notNull().defaultTo(0));
  }
  await hooks
    // GitLab's auto-disabling: consecutive failures, growing back-off, permanent after 40.
    .addColumn('recent_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('backoff_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_until', 'bigint')
    .addColumn('permanently_disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(db, 'project_hooks_project', 'project_hooks', ['project_id']);

  await tableWithId(db, ctx, 'webhook_deliveries')
    .addColumn('hook_id', 'integer', (c) =>
      c.notNull().references('project_hooks.id').onDelete('cascade'),
    )
    /** The event that caused it (null for a test delivery). */
    .addColumn('event_id', 'integer')
    /** `X-Gitlab-Event` (`Issue Hook`, …). */
    .addColumn('event_header', 'text', (c) => c.notNull())
    /** The hook kind that matched (`issues_events`, …, or `test`). */
    .addColumn('trigger', 'text', (c) => c.notNull())
    /** `X-Gitlab-Event-UUID`: the same for every hook the event is sent to. */
    .addColumn('event_uuid', 'text', (c) => c.notNull())
    /** `Idempotency-Key`: one per delivery, the same on every retry and resend. */
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    /** `pending`, `delivering` (claimed), `delivered`, `failed` (given up). */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    /** A claim's lease: a delivering row whose lease ran out (its process died) is claimed again. */
    .addColumn('claimed_until', 'bigint')
    .addColumn('claimed_by', 'text')
    /** The last attempt: request headers (JSON, token redacted), response, duration, error. */
    .addColumn('request_headers', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('attempted_at', 'bigint')
    .execute();
  // The worker's claim: due rows by time; the log: a hook's newest deliveries.
  await sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status IN ('pending', 'delivering')`.execute(
    db,
  );
  await createIndex(db, 'webhook_deliveries_hook', 'webhook_deliveries', ['hook_id', 'id']);
}
