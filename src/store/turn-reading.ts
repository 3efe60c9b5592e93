/**
 * PostgreSQL's turn reading: the settled head (events/head.ts) and the row counter, read in one
 * statement once per event-loop turn and shared by that turn's callers (per-turn.ts). SQLite
 * reads them in-process instead.
 */
import type { Kysely } from 'kysely';
import { type ListingHead, settledHead } from './events/head.js';
import { type SharedRead, sharedPerTurn } from './per-turn.js';
import type { Database } from './schema.js';

export type TurnReading = ListingHead & {
  /** The row counter (migration 015). */
  rowVersion: number;
  /** Which shared read this is (per-turn.ts). */
  seq: number;
};

/** The shared reading, sent on `db` (a prepared statement: planned once per connection). */
export function turnReading(db: Kysely<Database>): SharedRead<TurnReading> {
  return sharedPerTurn(async (seq) => ({ ...(await settledHead(db, true)), seq }));
}
