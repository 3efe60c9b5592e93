/**
 * Change counters (migration 015) for stars and follows: a starred or followed listing reads its
 * user's readable set with every request (store/events/social.ts), and that read joined hundreds
 * of stars with their projects each time. With the counters, the set is kept until a star, a
 * follow, a project, a membership or a user changes (store/row-cache). Listings are not touched:
 * the set stays part of their key and mark, so a star still changes them at once, and nothing else.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, runSql } from './helpers.js';

const TABLES = ['project_stars', 'user_follows'] as const;

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  for (const table of TABLES) {
    if (ctx.dialect === 'sqlite') {
      await sql`INSERT INTO row_versions (name, value) VALUES (${table}, 1)`.execute(db);
      for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
        await runSql(
          db,
          `CREATE TRIGGER ${table}_row_version_${op.toLowerCase()} AFTER ${op} ON ${table}
             BEGIN
               UPDATE row_versions SET value = value + 1 WHERE name = '${table}';
             END`,
        );
      }
      continue;
    }
    // PostgreSQL's one counter for every counted table, moved at commit (migration 015).
    await runSql(
      db,
      `CREATE TRIGGER ${table}_row_version AFTER INSERT OR UPDATE OR DELETE ON ${table}
         FOR EACH ROW EXECUTE FUNCTION row_version_note()`,
    );
    await runSql(
      db,
      `CREATE TRIGGER ${table}_row_version_truncate AFTER TRUNCATE ON ${table}
         FOR EACH STATEMENT EXECUTE FUNCTION row_version_note()`,
    );
  }
}
