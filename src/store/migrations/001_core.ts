/** Users, projects and their content, events and personal access tokens. */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, createIndex, tableWithId } from './helpers.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await tableWithId(db, ctx, 'users')
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('password_hash', 'text')
    .addColumn('admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('two_factor_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('otp_secret', 'text')
    .addColumn('otp_recovery_digests', 'text')
    .addColumn('private_profile', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('avatar_url', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX users_username_lower ON users (lower(username))`.execute(db);
  await sql`CREATE UNIQUE INDEX users_email_lower ON users (lower(email))`.execute(db);

  await tableWithId(db, ctx, 'projects')
    .addColumn('namespace', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('full_path', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('creator_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX projects_full_path_lower ON projects (lower(full_path))`.execute(
    db,
  );

  await db.schema
    .createTable('project_members')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('access_level', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_members_pk', ['project_id', 'user_id'])
    .execute();
  await createIndex(db, 'project_members_user', 'project_members', [
    'user_id',
    'project_id',
    'access_level',
  ]);

  for (const table of ['issues', 'merge_requests'] as const) {
    let builder = tableWithId(db, ctx, table)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
      .addColumn('iid', 'integer', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull());
    if (table === 'issues') {
      builder = builder.addColumn('confidential', 'integer', (c) => c.notNull().defaultTo(0));
    }
    await builder.execute();
    await createIndex(db, `${table}_project_iid`, table, ['project_id', 'iid'], { unique: true });
  }

  await tableWithId(db, ctx, 'milestones')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await tableWithId(db, ctx, 'snippets')
    .addColumn('project_id', 'integer', (c) => c.references('projects.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await tableWithId(db, ctx, 'notes')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('noteable_type', 'text', (c) => c.notNull())
    .addColumn('noteable_id', 'integer', (c) => c.notNull())
    .addColumn('system', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attachment', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await tableWithId(db, ctx, 'events')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('action', 'integer', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'integer')
    .addColumn('issue_id', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // Every listing walks one of these backwards (or forwards for sort=asc) by id: the source column
  // first, optionally the action, then id. Target-type filters ride on the same walk.
  await createIndex(db, 'events_project_id', 'events', ['project_id', 'id']);
  await createIndex(db, 'events_author_id', 'events', ['author_id', 'id']);
  await createIndex(db, 'events_project_action_id', 'events', ['project_id', 'action', 'id']);
  await createIndex(db, 'events_author_action_id', 'events', ['author_id', 'action', 'id']);

  await db.schema
    .createTable('push_event_payloads')
    .addColumn('event_id', 'integer', (c) => c.primaryKey().references('events.id'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('ref_type', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('commit_from', 'text')
    .addColumn('commit_to', 'text')
    .addColumn('commit_count', 'integer', (c) => c.notNull())
    .addColumn('commit_title', 'text')
    .addColumn('commits', 'text', (c) => c.notNull())
    .execute();

  await tableWithId(db, ctx, 'personal_access_tokens')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(db, 'personal_access_tokens_user', 'personal_access_tokens', ['user_id']);
}
