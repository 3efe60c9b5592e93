/**
 * The database's plan for a listing's statements, one line per step: the test that pins index use
 * reads it. PostgreSQL plans with sequential scans disabled, so a scan shows only where no index
 * can serve the query.
 */
import { sql } from 'kysely';
import { countWalk, tallyCount } from './counts.js';
import type { EventContext, EventQuery, EventWindow } from './query.js';
import { walk, walkOf } from './walks.js';

export type Explained =
  /** The walk a count with time filters makes. */
  | { kind: 'count' }
  /** The sum every other count runs. */
  | { kind: 'tallies' }
  | { kind: 'list'; window: EventWindow; fromId?: number | null };

/**
 * `analyze` runs the statement (PostgreSQL: EXPLAIN ANALYZE without timings), so the plan also
 * says which steps never ran: the partitions a page did not need.
 */
export async function explain(
  ctx: EventContext,
  q: EventQuery,
  what: Explained,
  analyze = false,
): Promise<string[]> {
  const query =
    what.kind === 'tallies'
      ? await tallyCount(ctx, q, 10_000)
      : await walk(
          ctx,
          q,
          what.kind === 'count' ? countWalk(10_000) : walkOf(q, what.window, what.fromId ?? null),
        );
  if (!query) return [];
  const compiled = query.compile(ctx.db);
  const sqlite = ctx.dialect === 'sqlite';
  return ctx.db.connection().execute(async (conn) => {
    if (!sqlite) await sql`SET enable_seqscan = off`.execute(conn);
    try {
      const plan = await conn.executeQuery<Record<'detail' | 'QUERY PLAN', string>>({
        ...compiled,
        sql: `${sqlite ? 'EXPLAIN QUERY PLAN' : analyze ? 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)' : 'EXPLAIN'} ${compiled.sql}`,
      });
      return plan.rows.map((r) => (sqlite ? r.detail : r['QUERY PLAN']));
    } finally {
      if (!sqlite) await sql`RESET enable_seqscan`.execute(conn);
    }
  });
}
