/**
 * PostgreSQL's turn reading: what readers check before answering (the settled head, the epochs,
 * the listing version, the row counter), read in one statement once per event-loop turn and shared
 * by the callers of that turn (per-turn.ts). SQLite reads each of them in-process instead.
 */
import { type Kysely, sql } from 'kysely';
import { type SharedRead, sharedPerTurn } from './per-turn.js';
import { ALL_TABLES } from './row-cache.js';
import type { Database } from './schema.js';

/** The settled head's columns (events/head.ts), as one statement's select list. */
export const SETTLED_HEAD_COLUMNS = `(SELECT max(id) FROM events) AS id,
  (SELECT epoch FROM listing_epochs WHERE project_id = 0) AS epoch,
  (SELECT epoch FROM listing_epochs WHERE project_id = -1) AS deletions,
  (SELECT value FROM listing_version WHERE id = 1) AS version`;

/** One statement's view (one snapshot) of the values readers check every turn. */
export interface TurnReading {
  headId: number;
  epoch: number;
  deletions: number;
  listingVersion: number;
  /** The row counter (migration 015). */
  rowVersion: number;
  /** Which shared read this is (per-turn.ts). */
  seq: number;
}

/** The shared reading, sent on `db` (a prepared statement: planned once per connection). */
export function turnReading(db: Kysely<Database>): SharedRead<TurnReading> {
  return sharedPerTurn(async (seq): Promise<TurnReading> => {
    const { rows } = await sql<
      Record<'id' | 'epoch' | 'deletions' | 'version' | 'rowVersion', number | null>
    >`SELECT ${sql.raw(SETTLED_HEAD_COLUMNS)},
        (SELECT value FROM row_versions WHERE name = ${ALL_TABLES}) AS "rowVersion"`.execute(db);
    const row = rows[0]!;
    return {
      headId: Number(row.id ?? 0),
      epoch: Number(row.epoch ?? 0),
      deletions: Number(row.deletions ?? 0),
      listingVersion: Number(row.version ?? 0),
      rowVersion: Number(row.rowVersion ?? 0),
      seq,
    };
  });
}
