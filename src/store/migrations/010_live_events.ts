/**
 * Live activity on PostgreSQL (SQLite needs nothing: it has one writer at a time and the data
 * version tells other processes about commits).
 *
 * - `events_serialize`: before any statement inserts events, the transaction takes one
 *   transaction-scoped advisory lock, held until it commits or rolls back. Event ids are then
 *   handed out in commit order: a reader that has seen event n has seen every committed event
 *   below n, so subscribers can follow the table with `id > last seen` and never miss a row that
 *   a slower, earlier transaction commits later. The lock is taken before the sequence is read
 *   (a BEFORE STATEMENT trigger fires before the rows, and their defaults, are built).
 * - `events_notify`: after the statement, `pg_notify('pulsegate_events', <schema>)`. A trigger
 *   rather than the writer's code, so every writer (any process, the CLI, an import) signals;
 *   PostgreSQL delivers it only when the transaction commits, and a rolled-back write signals
 *   nothing. The payload is the schema, so databases shared by several schemas (tests) can tell
 *   their own events apart.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, runSql } from './helpers.js';

/** The advisory lock key (any constant; "pulsegate events" in ASCII, folded into 63 bits). */
export const EVENTS_LOCK_KEY = 7_062_091_135_457_391n;

/** PL/pgSQL: take the events lock (every writer of events, and of what is derived from them). */
export const TAKE_EVENTS_LOCK = `PERFORM pg_advisory_xact_lock(${EVENTS_LOCK_KEY.toString()});`;

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  await runSql(
    db,
    `CREATE FUNCTION events_serialize() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         ${TAKE_EVENTS_LOCK}
         RETURN NULL;
       END $$`,
  );
  await runSql(
    db,
    `CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('pulsegate_events', current_schema());
         RETURN NULL;
       END $$`,
  );
  await sql`CREATE TRIGGER events_serialize BEFORE INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_serialize()`.execute(
    db,
  );
  await sql`CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_notify()`.execute(
    db,
  );
}
