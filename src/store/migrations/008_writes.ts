/**
 * What GitLab-compatible writes need beyond the imported activity: descriptions, update and close
 * times, merge request branches and approvals, milestone state and dates, membership expiry, and
 * the answers kept for `Idempotency-Key` retries.
 *
 * New columns take defaults, so databases imported before this migration stay valid: their
 * `updated_at` is filled from `created_at`.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, createIndex, tableWithId } from './helpers.js';

async function addColumns(
  db: Kysely<unknown>,
  table: string,
  columns: [name: string, type: 'text' | 'integer' | 'bigint', notNullDefault?: string | number][],
): Promise<void> {
  for (const [name, type, fallback] of columns) {
    await db.schema
      .alterTable(table)
      .addColumn(name, type, (c) => (fallback === undefined ? c : c.notNull().defaultTo(fallback)))
      .execute();
  }
}

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await addColumns(db, 'projects', [
    ['default_branch', 'text', 'main'],
    ['last_activity_at', 'bigint'],
  ]);
  await addColumns(db, 'project_members', [
    // A calendar day (YYYY-MM-DD, UTC) after which the membership ends, as GitLab's expires_at.
    ['expires_at', 'text'],
    ['created_at', 'bigint'],
    ['created_by_id', 'integer'],
  ]);
  // Only memberships with an expiry are looked at by the expiry job.
  await sql`CREATE INDEX project_members_expires_at ON project_members (expires_at) WHERE expires_at IS NOT NULL`.execute(
    db,
  );

  const tracked: [string, 'text' | 'integer' | 'bigint', (string | number)?][] = [
    ['description', 'text', ''],
    ['updated_at', 'bigint', 0],
    ['closed_at', 'bigint'],
    ['closed_by_id', 'integer'],
    ['milestone_id', 'integer'],
  ];
  await addColumns(db, 'issues', tracked);
  await addColumns(db, 'merge_requests', [
    ...tracked,
    ['source_branch', 'text', ''],
    ['target_branch', 'text', ''],
    ['merged_at', 'bigint'],
    ['merged_by_id', 'integer'],
  ]);
  await addColumns(db, 'milestones', [
    ['description', 'text', ''],
    ['state', 'text', 'active'],
    ['due_date', 'text'],
    ['start_date', 'text'],
    ['updated_at', 'bigint', 0],
  ]);
  for (const table of ['issues', 'merge_requests', 'milestones']) {
    await sql`UPDATE ${sql.table(table)} SET updated_at = created_at`.execute(db);
  }
  // Milestone iids were imported without a uniqueness guarantee; new ones are allocated per project.
  await createIndex(db, 'milestones_project_iid', 'milestones', ['project_id', 'iid']);
  await createIndex(db, 'notes_noteable', 'notes', ['noteable_type', 'noteable_id', 'id']);

  await db.schema
    .createTable('merge_request_approvals')
    .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('merge_request_approvals_pk', ['merge_request_id', 'user_id'])
    .execute();

  // One answer per (user, key): a retry within the retention window gets it back verbatim.
  await tableWithId(db, ctx, 'idempotency_keys')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    /** METHOD and path of the first request: the same key on another request is refused. */
    .addColumn('request', 'text', (c) => c.notNull())
    /** SHA-256 of the first request's body: a retry must send the same one. */
    .addColumn('body_digest', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(
    db,
    'idempotency_keys_user_key',
    'idempotency_keys',
    ['user_id', 'idempotency_key'],
    { unique: true },
  );
  await createIndex(db, 'idempotency_keys_created_at', 'idempotency_keys', ['created_at']);
}
