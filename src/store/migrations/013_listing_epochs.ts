/**
 * Listing epochs: a counter per project (and one for everything, project_id 0) that moves whenever
 * something changes which already-written events a listing shows: an event deleted or moved, a
 * membership added, changed or removed, a project's visibility changed, an issue's confidentiality
 * or author changed. Appending events does not move it: listing caches bring themselves forward
 * over new ids instead (services/activity/listing-cache.ts).
 *
 * Row -1 counts event deletions (and moves) alone: SQLite reuses the highest id after it is
 * deleted, so a cache holding marks at or above a deleted id must start over, whatever project.
 *
 * Triggers bump the epochs inside the writing transaction, so no write path can forget to, and a
 * reader never sees the change without the bump (they commit together).
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, runSql } from './helpers.js';

/** Which table changes bump the epoch of which project (`ROW` is NEW or OLD). */
const SOURCES: Array<{
  table: string;
  events: string[];
  project: (row: 'NEW' | 'OLD') => string;
}> = [
  { table: 'events', events: ['DELETE', 'UPDATE'], project: (r) => `${r}.project_id` },
  {
    table: 'project_members',
    events: ['INSERT', 'UPDATE', 'DELETE'],
    project: (r) => `${r}.project_id`,
  },
  { table: 'projects', events: ['UPDATE OF visibility'], project: (r) => `${r}.id` },
  {
    table: 'issues',
    events: ['UPDATE OF confidential, author_id'],
    project: (r) => `${r}.project_id`,
  },
];

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('listing_epochs')
    .addColumn('project_id', 'integer', (c) => c.primaryKey())
    .addColumn('epoch', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO listing_epochs (project_id, epoch) VALUES (0, 0), (-1, 0)`.execute(db);

  if (ctx.dialect === 'postgres') {
    // One function serves every table: it is told which column names the project.
    await runSql(
      db,
      `CREATE FUNCTION bump_listing_epoch() RETURNS trigger AS $$
DECLARE pid integer;
BEGIN
  IF TG_OP = 'DELETE' THEN
    EXECUTE format('SELECT ($1).%I', TG_ARGV[0]) INTO pid USING OLD;
  ELSE
    EXECUTE format('SELECT ($1).%I', TG_ARGV[0]) INTO pid USING NEW;
  END IF;
  INSERT INTO listing_epochs (project_id, epoch) VALUES (pid, 1), (0, 1)
    ON CONFLICT (project_id) DO UPDATE SET epoch = listing_epochs.epoch + 1;
  IF TG_TABLE_NAME = 'events' THEN
    UPDATE listing_epochs SET epoch = epoch + 1 WHERE project_id = -1;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    -- A row moved to another project changes that project's listings too.
    EXECUTE format('SELECT ($1).%I', TG_ARGV[0]) INTO pid USING OLD;
    INSERT INTO listing_epochs (project_id, epoch) VALUES (pid, 1)
      ON CONFLICT (project_id) DO UPDATE SET epoch = listing_epochs.epoch + 1;
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql`,
    );
    for (const source of SOURCES) {
      const column = source.project('NEW').split('.')[1]!;
      for (const event of source.events) {
        const name = `${source.table}_epoch_${event.split(' ')[0]!.toLowerCase()}`;
        await runSql(
          db,
          `CREATE TRIGGER ${name} AFTER ${event} ON ${source.table} FOR EACH ROW EXECUTE FUNCTION bump_listing_epoch('${column}')`,
        );
      }
    }
    return;
  }

  for (const source of SOURCES) {
    for (const event of source.events) {
      const kind = event.split(' ')[0]!;
      const rows: Array<'NEW' | 'OLD'> =
        kind === 'INSERT' ? ['NEW'] : kind === 'DELETE' ? ['OLD'] : ['NEW', 'OLD'];
      const bumps = rows
        .map(
          (row) =>
            `INSERT INTO listing_epochs (project_id, epoch) VALUES (${source.project(row)}, 1)
               ON CONFLICT (project_id) DO UPDATE SET epoch = epoch + 1;`,
        )
        .join('\n');
      await runSql(
        db,
        `CREATE TRIGGER ${source.table}_epoch_${kind.toLowerCase()} AFTER ${event} ON ${source.table}
           FOR EACH ROW BEGIN
             ${bumps}
             UPDATE listing_epochs SET epoch = epoch + 1 WHERE project_id IN (0${source.table === 'events' ? ', -1' : ''});
           END`,
      );
    }
  }
}
