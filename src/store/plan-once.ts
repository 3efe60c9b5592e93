/**
 * Marks a statement that reads the event log but whose plan does not depend on its parameters: a
 * listing's count, which sums small tally tables and walks the few events above the reader's head.
 * Such statements run on PostgreSQL as named statements on a pool of their own whose sessions keep
 * one generic plan per statement (database.ts `planOnce`, `prepareRowReads`). On 1,000,000 events,
 * planning a count took 0.3–3.7 ms (with a viewer's visibility joins, more than running it); with a
 * kept plan, 0.02–0.05 ms, and the run read the same indexes no slower (EXPLAIN ANALYZE, generic
 * against custom plans). Walks stay unmarked: a kept plan of a page's walk (`id <= $n ... OFFSET
 * $k`) ran two to four times slower.
 */
export const PLAN_ONCE = '/* plan once */ ';
