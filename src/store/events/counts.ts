/**
 * How many events a listing holds: capped counts from the tallies (migrations 017, 018) or by
 * walking, and counts per day (the contribution calendar).
 */
import { sql } from 'kysely';
import { type EventContext, type EventQuery, isSocial } from './query.js';
import { withActiveSources } from './social.js';
import { hidesMergeRequestNotes, mayHide, visible } from './visibility.js';
import { type Walk, judged, memberParts, single, walk } from './walks.js';

/** Any bound: a count's events above the reader's head are the few committed since it read it. */
const ABOVE_HEAD_LIMIT = 2 ** 31 - 1;

/**
 * Counts up to `cap + 1` matching events. Without a time filter, in one statement: the listing's
 * tallies, less what confidentiality hides from the viewer, less its events above `upTo`.
 */
export async function count(ctx: EventContext, q: EventQuery, cap: number): Promise<number> {
  const { createdBefore, createdFrom } = q.filter;
  if (createdBefore !== undefined || createdFrom !== undefined) return walkCount(ctx, q, cap);
  if (await hidesMergeRequestNotes(ctx, q)) return walkCount(ctx, q, cap);
  const { rows } = await (await tallyCount(ctx, q, cap)).execute(ctx.prepared);
  return Math.min(Math.max(Number(rows[0]?.n ?? 0), 0), cap + 1);
}

/**
 * The statement `count` runs for a listing without time filters. The viewer's own confidential
 * issues are the one term that grows with the log (it joins each of those issues to its
 * per-issue tallies), and it only adds: it is read only when the other terms leave the count
 * within `cap`, which a listing of a large log seldom does.
 */
export async function tallyCount(ctx: EventContext, q: EventQuery, cap: number) {
  // Only for a viewer from whom no note can be hidden (`count`).
  const untilNow = { ...q, upTo: undefined, clearOfPrivateGuest: true };
  const sum = sql<number>`coalesce(sum(e.n), 0)`.as('n');
  // scope=all and starred: each project on its own, as its walks (with its own confidentiality);
  // followed: one sum over its users' tallies, which per-user terms would only repeat.
  const { kind } = untilNow.source;
  const social = isSocial(untilNow.source);
  const active = social ? await withActiveSources(ctx, untilNow) : untilNow;
  const parts = kind === 'followed' ? [active] : ((await memberParts(ctx, untilNow)) ?? [untilNow]);
  const terms = [];
  const own = [];
  for (const part of parts) {
    terms.push(sql` + (${visible(ctx, part, 'tallies').select(sum)})`);
    if (!mayHide(part)) continue;
    terms.push(sql` - (${visible(ctx, part, 'hidden').select(sum)})`);
    if (part.viewer) own.push(sql` + (${visible(ctx, part, 'own').select(sum)})`);
  }
  if (q.upTo !== undefined) {
    const w: Walk = {
      lower: { id: q.upTo, inclusive: false },
      descending: false,
      limit: ABOVE_HEAD_LIMIT,
      idsOnly: true,
      unordered: true,
    };
    // A user's (or a starred or followed set's) few newest events: one joined walk is exact, and
    // choosing arms would cost more.
    const above =
      kind === 'author' || social ? single(ctx, active, w) : await walk(ctx, untilNow, w);
    if (above) terms.push(sql` - (SELECT count(*) FROM (${above}) AS above)`);
  }
  const rest = sql<{ n: number | string }>`SELECT 0${sql.join(grouped(terms), sql``)} AS n`;
  if (own.length === 0) return rest;
  // Materialized, so the other terms are summed once for both the test and the answer; the own
  // terms sit in the branch not taken when the rest is past the cap (neither database evaluates
  // a scalar subquery of a branch it does not take).
  return sql<{ n: number | string }>`WITH rest AS MATERIALIZED (${rest})
    SELECT CASE WHEN rest.n > ${cap} THEN rest.n
      ELSE rest.n${sql.join(grouped(own), sql``)} END AS n FROM rest`;
}

/** Terms per parenthesized group: SQLite refuses an expression more than 1,000 levels deep. */
const TERMS_PER_GROUP = 100;

/**
 * The terms `+ (…) - (…)` of a sum, as groups `+ (0 + (…) - (…) …)` of at most TERMS_PER_GROUP,
 * so a starred or followed listing's hundreds of sources stay within SQLite's expression depth.
 */
function grouped(terms: ReturnType<typeof sql>[]): ReturnType<typeof sql>[] {
  if (terms.length <= TERMS_PER_GROUP) return terms;
  const groups = [];
  for (let i = 0; i < terms.length; i += TERMS_PER_GROUP) {
    groups.push(sql` + (0${sql.join(terms.slice(i, i + TERMS_PER_GROUP), sql``)})`);
  }
  return groups;
}

/** The walk a count with time filters makes: up to `cap + 1` ids, unordered. */
export function countWalk(cap: number): Walk {
  return { descending: true, limit: cap + 1, idsOnly: true, unordered: true };
}

/** The same count by walking up to `cap + 1` of the listing's events (time filters, tests). */
export async function walkCount(ctx: EventContext, q: EventQuery, cap: number): Promise<number> {
  const inner = await walk(ctx, q, countWalk(cap));
  if (!inner) return 0;
  const row = await ctx.db
    .selectFrom(inner.as('capped'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A listing's events per local day (days since the epoch of the local date), over `segments`
 * of time in which the day starts at a fixed offset from UTC (domain/calendar `offsetSegments`):
 * each is one grouped walk of its own time range.
 */
export async function countByDay(
  ctx: EventContext,
  q: EventQuery,
  segments: ReadonlyArray<{ from: number; to: number; offset: number }>,
): Promise<Array<{ day: number; count: number }>> {
  const days = new Map<number, number>();
  for (const { from, to, offset } of segments) {
    const part = { ...q, filter: { ...q.filter, createdFrom: from, createdBefore: to } };
    // Integer division in both dialects; the cast keeps SQLite from handing back a REAL. The
    // offset is a whole number of milliseconds the domain computed, written as a literal.
    const day = sql<number>`cast((e.created_at + ${sql.lit(offset)}) / 86400000 as integer)`;
    const rows = await visible(ctx, await judged(ctx, part))
      .select((eb) => [day.as('day'), eb.fn.countAll<number>().as('n')])
      .groupBy(day)
      .execute();
    for (const row of rows) {
      const key = Number(row.day);
      days.set(key, (days.get(key) ?? 0) + Number(row.n));
    }
  }
  return [...days].map(([day, count]) => ({ day, count }));
}
