/** PostgreSQL's events lock (migration 010 keeps its own copy of the key). */
import { type Kysely, sql } from 'kysely';

/** Every writer of events and tallies holds it until its transaction ends. */
const EVENTS_LOCK_KEY = 7_062_091_135_457_391n;

/** Takes the events lock for the rest of `trx`'s transaction (PostgreSQL only). */
export async function lockEvents<DB>(trx: Kysely<DB>): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${sql.raw(EVENTS_LOCK_KEY.toString())})`.execute(trx);
}
