/**
 * Stars and follows (GitLab's `users_star_projects` and `user_follow_users`).
 *
 * - `project_stars`: who starred which project and when. The primary key answers "what did this
 *   user star" (starred projects, the starred feed); the `(project_id, user_id)` index answers
 *   "who starred this project" (starrers, star counts). Rows go with their user or project.
 * - `user_follows`: who follows whom. The primary key answers "whom does this user follow"
 *   (following, the followed feed); the `(followee_id, follower_id)` index answers "who follows
 *   this user". Nobody follows themselves (GitLab refuses it too), enforced here as well.
 *
 * No counter moves with them: the starred and followed listings read their user's set with every
 * request and carry it in their key and mark (store/events/social.ts), so a star or a follow
 * changes those listings at once and leaves every other cached answer standing.
 */
import { type Kysely, sql } from 'kysely';
import { createIndex } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('project_stars')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) =>
      c.notNull().references('projects.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_stars_pk', ['user_id', 'project_id'])
    .execute();
  await createIndex(db, 'project_stars_project_user', 'project_stars', ['project_id', 'user_id']);

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
  await createIndex(db, 'user_follows_followee_follower', 'user_follows', [
    'followee_id',
    'follower_id',
  ]);
}
