/**
 * The listing version (conditional polling, ETags) and feed tokens.
 *
 * `listing_version` holds one counter that moves whenever a write commits to a table an event
 * listing's body is built from (events and push payloads, users, projects, memberships, issues,
 * merge requests, milestones, snippets, notes). Triggers move it, so every writer is covered: the
 * API's writes, the CLI's import and seed, other processes, a hand-typed SQL statement. Nothing
 * else (tokens, sessions, throttles, rate-limit counters) moves it, so polling clients keep their
 * 304s while those change.
 *
 * - SQLite: a row trigger per table; writers are serialized anyway, so one more row update per
 *   written row costs little and never waits.
 * - PostgreSQL: a statement trigger per table marks the transaction once (a transaction-local
 *   setting) and inserts one row into `listing_version_bumps`, whose deferred constraint trigger
 *   moves the counter at commit time. The counter row is thus locked only for the instant
 *   between the commit's triggers and the commit, after every other lock of the transaction is
 *   taken: concurrent writers queue there briefly but cannot deadlock on it. `changed_at` (the
 *   database's clock) says how recent the last change is (see services/activity/listing-version).
 *
 * `feed_tokens`: one row per user who has a feed token: the generation it was derived from (an
 * HMAC of the user id and the generation under a server secret, so the profile page can show it
 * without storing it) and the SHA-256 digest used to find the user from a presented token.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, runSql } from './helpers.js';

export const LISTING_TABLES = [
  'users',
  'projects',
  'project_members',
  'milestones',
  'issues',
  'merge_requests',
  'snippets',
  'notes',
  'events',
  'push_event_payloads',
] as const;

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('listing_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO listing_version (id, value, changed_at) VALUES (1, 1, 0)`.execute(db);

  if (ctx.dialect === 'sqlite') {
    for (const table of LISTING_TABLES) {
      for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
        await runSql(
          db,
          `CREATE TRIGGER ${table}_listing_version_${op.toLowerCase()} AFTER ${op} ON ${table}
             BEGIN
               UPDATE listing_version SET value = value + 1,
                 changed_at = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE id = 1;
             END`,
        );
      }
    }
  } else {
    await sql`CREATE TABLE listing_version_bumps (txid bigint PRIMARY KEY)`.execute(db);
    await runSql(
      db,
      `CREATE FUNCTION listing_version_note() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF current_setting('pulsegate.listing_changed', true) IS DISTINCT FROM '1' THEN
             PERFORM set_config('pulsegate.listing_changed', '1', true);
             INSERT INTO listing_version_bumps (txid) VALUES (txid_current());
           END IF;
           RETURN NULL;
         END $$`,
    );
    await runSql(
      db,
      `CREATE FUNCTION listing_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           UPDATE listing_version SET value = value + 1,
             changed_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint WHERE id = 1;
           DELETE FROM listing_version_bumps WHERE txid = NEW.txid;
           RETURN NULL;
         END $$`,
    );
    await runSql(
      db,
      `CREATE CONSTRAINT TRIGGER listing_version_bump AFTER INSERT ON listing_version_bumps
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION listing_version_bump()`,
    );
    for (const table of LISTING_TABLES) {
      await runSql(
        db,
        `CREATE TRIGGER ${table}_listing_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
           ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION listing_version_note()`,
      );
    }
  }

  await db.schema
    .createTable('feed_tokens')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id'))
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
