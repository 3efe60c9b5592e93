/**
 * Stars and follows (GitLab's `users_star_projects` and `user_follow_users`), and a per-user
 * social version.
 *
 * - `project_stars`: who starred which project and when. The primary key answers "what did this
 *   user star" (starred projects, the starred feed); the `(project_id, user_id)` index answers
 *   "who starred this project" (starrers, star counts). Rows go with their user or project.
 * - `user_follows`: who follows whom. The primary key answers "whom does this user follow"
 *   (following, the followed feed); the `(followee_id, follower_id)` index answers "who follows
 *   this user". Nobody follows themselves (GitLab refuses it too), enforced here as well.
 * - `social_versions`: one counter per user, moved by triggers whenever a star of theirs or a
 *   follow they make is added or removed, so a cache of that user's starred or followed listing
 *   can tell cheaply, inside the reading transaction, that its sources changed. Triggers rather
 *   than the store so that every writer (API, import, seed, hand-typed SQL, cascades) moves it.
 *
 * Both tables also move the listing version (migration 009): what a starred or followed event
 * listing shows depends on them, so conditional polling must see their changes.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './helpers.js';

/** Each social table and the column naming the user whose version it moves. */
export const SOCIAL_TABLES = [
  { table: 'project_stars', user: 'user_id' },
  { table: 'user_follows', user: 'follower_id' },
] as const;

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('project_stars')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) =>
      c.notNull().references('projects.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_stars_pk', ['user_id', 'project_id'])
    .execute();
  await db.schema
    .createIndex('project_stars_project_user')
    .on('project_stars')
    .columns(['project_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('user_follows')
    .addColumn('follower_id', 'integer', (c) =>
      c.notNull().references('users.id').onDelete('cascade'),
    )
    .addColumn('followee_id', 'integer', (c) =>
      c.notNull().references('users.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_follows_pk', ['follower_id', 'followee_id'])
    .addCheckConstraint('user_follows_not_self', sql`follower_id <> followee_id`)
    .execute();
  await db.schema
    .createIndex('user_follows_followee_follower')
    .on('user_follows')
    .columns(['followee_id', 'follower_id'])
    .execute();

  await db.schema
    .createTable('social_versions')
    .addColumn('user_id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();

  if (ctx.dialect === 'postgres') {
    await sql
      .raw(
        `CREATE FUNCTION bump_social_version() RETURNS trigger AS $$
DECLARE uid integer;
BEGIN
  IF TG_OP = 'DELETE' THEN
    EXECUTE format('SELECT ($1).%I', TG_ARGV[0]) INTO uid USING OLD;
  ELSE
    EXECUTE format('SELECT ($1).%I', TG_ARGV[0]) INTO uid USING NEW;
  END IF;
  INSERT INTO social_versions (user_id, version) VALUES (uid, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = social_versions.version + 1;
  RETURN NULL;
END $$ LANGUAGE plpgsql`,
      )
      .execute(db);
    for (const { table, user } of SOCIAL_TABLES) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_social_version AFTER INSERT OR DELETE ON ${table}
           FOR EACH ROW EXECUTE FUNCTION bump_social_version('${user}')`,
        )
        .execute(db);
      await sql
        .raw(
          `CREATE TRIGGER ${table}_listing_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
           ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION listing_version_note()`,
        )
        .execute(db);
    }
    return;
  }

  for (const { table, user } of SOCIAL_TABLES) {
    for (const op of ['INSERT', 'DELETE'] as const) {
      const row = op === 'INSERT' ? 'NEW' : 'OLD';
      await sql
        .raw(
          `CREATE TRIGGER ${table}_social_version_${op.toLowerCase()} AFTER ${op} ON ${table}
           FOR EACH ROW BEGIN
             INSERT INTO social_versions (user_id, version) VALUES (${row}.${user}, 1)
               ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
           END`,
        )
        .execute(db);
    }
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_listing_version_${op.toLowerCase()} AFTER ${op} ON ${table}
           BEGIN
             UPDATE listing_version SET value = value + 1,
               changed_at = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE id = 1;
           END`,
        )
        .execute(db);
    }
  }
}
