/**
 * Appending an event no longer moves the listing version (migration 009).
 *
 * The version now stands for what already-written events look like (titles, names, notes,
 * visibility, memberships, deletions), not for which events exist: listing caches follow appended
 * events through the change feed, per listing (services/activity/listing-cache.ts), and version
 * tags add the listing's newest event to the version (http/conditional.ts). So a write to project A
 * no longer drops project B's cached pages and kept responses, and pages can be dropped whenever
 * the version moves: they hold hydrated events, whose titles and names the version covers.
 *
 * What still moves it, with events and push payloads:
 * - an event inserted below the newest id (an import that keeps ids, a hand-typed statement): the
 *   change feed walks ids upwards and would not see it;
 * - a push payload for an event that is not the newest (an append inserts its event, then its
 *   payload, in one transaction, with no other appender in between: SQLite has one writer, and
 *   PostgreSQL appenders hold the events lock of migration 010 until they commit);
 * - every update and delete, as before.
 *
 * Other tables keep moving it on inserts too: their ids may be reused on SQLite (the highest id is
 * handed out again after it is deleted), and a reused id would change what an older event shows.
 *
 * A project's last activity time, which an append moves at most once an hour (events.ts `append`),
 * is shown by no listing, so updating it alone moves nothing either: with ten busy projects the
 * version would otherwise move, and every cached page go, ten times an hour.
 *
 * PostgreSQL's triggers become row triggers (still marking the transaction once): a statement
 * trigger moved the version for statements that changed nothing, such as that hourly update, which
 * usually matches no row. Inserts into events and push payloads are checked once per statement.
 */
import { type Kysely, sql } from 'kysely';
import { LISTING_TABLES } from './009_listing_version.js';
import { type MigrationContext, runSql } from './helpers.js';

/** Inserts into these tables move the version only when they land below the newest event. */
const APPENDED: Record<string, string> = {
  events: 'EXISTS (SELECT 1 FROM events WHERE id > NEW.id)',
  push_event_payloads: 'EXISTS (SELECT 1 FROM events WHERE id > NEW.event_id)',
};

/**
 * The same per statement on PostgreSQL, over the inserted rows (`inserted`): more rows at or above
 * the lowest inserted id than were inserted means an older row lies above it; a payload whose event
 * has a newer one after it is not an append's.
 */
const APPENDED_PG: Record<string, string> = {
  events: `(SELECT count(*) FROM events WHERE id >= (SELECT min(id) FROM inserted))
           > (SELECT count(*) FROM inserted)`,
  push_event_payloads: `EXISTS (SELECT 1 FROM events
           WHERE id > (SELECT min(event_id) FROM inserted))`,
};

/** The column no listing shows, which appends update. */
const ACTIVITY_TIME = 'last_activity_at';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect === 'sqlite') {
    for (const [table, below] of Object.entries(APPENDED)) {
      // Named like migration 009's triggers: bulk loads set them aside by name (listing-version.ts).
      const name = `${table}_listing_version_insert`;
      await runSql(db, `DROP TRIGGER ${name}`);
      await runSql(
        db,
        `CREATE TRIGGER ${name} AFTER INSERT ON ${table} WHEN ${below}
           BEGIN
             UPDATE listing_version SET value = value + 1,
               changed_at = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE id = 1;
           END`,
      );
    }
    // SQLite has no whole-row comparison: the trigger lists the columns it watches. A later
    // migration adding a column to projects must recreate it (PRAGMA below picks them all up).
    const { rows } = await sql<{
      name: string;
    }>`SELECT name FROM pragma_table_info('projects')`.execute(db);
    const watched = rows.map((r) => r.name).filter((name) => name !== ACTIVITY_TIME);
    await runSql(db, `DROP TRIGGER projects_listing_version_update`);
    await runSql(
      db,
      `CREATE TRIGGER projects_listing_version_update AFTER UPDATE OF ${watched.join(', ')}
         ON projects
         BEGIN
           UPDATE listing_version SET value = value + 1,
             changed_at = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE id = 1;
         END`,
    );
    return;
  }
  // One check per statement, over the rows it inserted (a transition table). The function forbids
  // sequential scans: its plans are made once per session, possibly while the table is nearly
  // empty (a seed), and a scan per check would make a load quadratic. Appends are one row at the
  // top (no other row at or above it); a bulk load's batches may move the version, as they should.
  for (const [table, check] of Object.entries(APPENDED_PG)) {
    await runSql(
      db,
      `CREATE FUNCTION ${table}_listing_version_insert() RETURNS trigger LANGUAGE plpgsql
         SET enable_seqscan = off AS $$
         BEGIN
           IF current_setting('pulsegate.listing_changed', true) IS DISTINCT FROM '1'
              AND (${check}) THEN
             PERFORM set_config('pulsegate.listing_changed', '1', true);
             INSERT INTO listing_version_bumps (txid) VALUES (txid_current());
           END IF;
           RETURN NULL;
         END $$`,
    );
  }
  for (const table of LISTING_TABLES) {
    await runSql(db, `DROP TRIGGER ${table}_listing_version ON ${table}`);
    if (table in APPENDED_PG) {
      await runSql(
        db,
        `CREATE TRIGGER ${table}_listing_version AFTER UPDATE OR DELETE ON ${table}
           FOR EACH ROW EXECUTE FUNCTION listing_version_note()`,
      );
      await runSql(
        db,
        `CREATE TRIGGER ${table}_listing_version_insert AFTER INSERT ON ${table}
           REFERENCING NEW TABLE AS inserted
           FOR EACH STATEMENT EXECUTE FUNCTION ${table}_listing_version_insert()`,
      );
    } else if (table === 'projects') {
      await runSql(
        db,
        `CREATE TRIGGER projects_listing_version AFTER INSERT OR DELETE ON projects
           FOR EACH ROW EXECUTE FUNCTION listing_version_note()`,
      );
      await runSql(
        db,
        `CREATE TRIGGER projects_listing_version_update AFTER UPDATE ON projects FOR EACH ROW
           WHEN ((to_jsonb(OLD) - '${ACTIVITY_TIME}') IS DISTINCT FROM
                 (to_jsonb(NEW) - '${ACTIVITY_TIME}'))
           EXECUTE FUNCTION listing_version_note()`,
      );
    } else {
      await runSql(
        db,
        `CREATE TRIGGER ${table}_listing_version AFTER INSERT OR UPDATE OR DELETE ON ${table}
           FOR EACH ROW EXECUTE FUNCTION listing_version_note()`,
      );
    }
    await runSql(
      db,
      `CREATE TRIGGER ${table}_listing_version_truncate AFTER TRUNCATE ON ${table}
         FOR EACH STATEMENT EXECUTE FUNCTION listing_version_note()`,
    );
  }
}
