/**
 * Failed-attempt counters in fixed windows, shared by every process over the database, with the
 * attempts still being verified (`pending`) counted beside the failures.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

export interface CounterRow {
  failures: number;
  window_start: number;
}

/** One key to reserve an attempt on: refused once `limit` attempts fall in the current window. */
export interface ReserveRequest {
  key: string;
  limit: number;
  windowMs: number;
}

/**
 * Either every key took the attempt (each key's window start), or none did: `inFlight` when only
 * unsettled attempts stand in the way (they may yet succeed and free their places).
 */
export type ReserveOutcome = { windows: number[] } | { retryAfterMs: number; inFlight: boolean };

/** Unwinds the reserving transaction when a key is at its limit. */
class KeyLocked extends Error {
  constructor(
    readonly retryAfterMs: number,
    readonly inFlight: boolean,
  ) {
    super('throttled');
  }
}

export class ThrottleStore {
  constructor(private readonly db: Kysely<Database>) {}

  async counters(keys: readonly string[]): Promise<Map<string, CounterRow>> {
    if (keys.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('auth_throttle')
      .select(['key', 'failures', 'window_start'])
      .where('key', 'in', [...keys])
      .execute();
    return new Map(
      rows.map((r) => [r.key, { failures: r.failures, window_start: r.window_start }]),
    );
  }

  /** One more failure; a window older than `windowMs` starts over at this one. Atomic. */
  async fail(key: string, now: number, windowMs: number): Promise<void> {
    const expired = sql<boolean>`auth_throttle.window_start <= ${now - windowMs}`;
    await this.db
      .insertInto('auth_throttle')
      .values({ key, failures: 1, window_start: now })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql<number>`CASE WHEN ${expired} THEN 1 ELSE auth_throttle.failures + 1 END`,
          pending: sql<number>`CASE WHEN ${expired} THEN 0 ELSE auth_throttle.pending END`,
          window_start: sql<number>`CASE WHEN ${expired} THEN ${now} ELSE auth_throttle.window_start END`,
        }),
      )
      .execute();
  }

  /**
   * Reserves one attempt on every key, in one transaction: per key a single conditional upsert (a
   * new or expired window starts with this attempt in flight; a current one takes it only while
   * failures plus attempts in flight stay below the limit), so concurrent callers — in this process
   * or another — never have more than `limit` attempts evaluated in a window between them. If any
   * key is full, nothing is reserved.
   */
  async reserve(requests: readonly ReserveRequest[], now: number): Promise<ReserveOutcome> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const windows: number[] = [];
        for (const { key, limit, windowMs } of requests) {
          const expired = sql<boolean>`auth_throttle.window_start <= ${now - windowMs}`;
          const row = await trx
            .insertInto('auth_throttle')
            .values({ key, failures: 0, pending: 1, window_start: now })
            .onConflict((oc) =>
              oc
                .column('key')
                .doUpdateSet({
                  failures: sql<number>`CASE WHEN ${expired} THEN 0 ELSE auth_throttle.failures END`,
                  pending: sql<number>`CASE WHEN ${expired} THEN 1 ELSE auth_throttle.pending + 1 END`,
                  window_start: sql<number>`CASE WHEN ${expired} THEN ${now} ELSE auth_throttle.window_start END`,
                })
                .where(
                  sql<boolean>`${expired} OR auth_throttle.failures + auth_throttle.pending < ${limit}`,
                ),
            )
            .returning('window_start')
            .executeTakeFirst();
          if (!row) {
            const full = await trx
              .selectFrom('auth_throttle')
              .select(['failures', 'window_start'])
              .where('key', '=', key)
              .executeTakeFirstOrThrow();
            throw new KeyLocked(full.window_start + windowMs - now, full.failures < limit);
          }
          windows.push(row.window_start);
        }
        return { windows };
      });
    } catch (error) {
      if (error instanceof KeyLocked) {
        return { retryAfterMs: error.retryAfterMs, inFlight: error.inFlight };
      }
      throw error;
    }
  }

  /**
   * Settles an attempt reserved in the window that started at `windowStart`: `failed` turns it
   * into a failure (in the current window, should that one have started since); `succeeded` gives
   * its place back; `cleared` also forgets the key's failures (a correct password).
   */
  async settle(
    key: string,
    windowStart: number,
    outcome: 'failed' | 'succeeded' | 'cleared',
    now: number,
    windowMs: number,
  ): Promise<void> {
    const ours = sql<boolean>`window_start = ${windowStart}`;
    const pending = sql<number>`CASE WHEN ${ours} AND pending > 0 THEN pending - 1 ELSE pending END`;
    if (outcome === 'failed') {
      const result = await this.db
        .updateTable('auth_throttle')
        .set({ failures: sql<number>`failures + 1`, pending })
        .where('key', '=', key)
        .where('window_start', '=', windowStart)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) await this.fail(key, now, windowMs);
      return;
    }
    await this.db
      .updateTable('auth_throttle')
      .set(outcome === 'cleared' ? { failures: 0, pending } : { pending })
      .where('key', '=', key)
      .execute();
  }

  async reset(key: string): Promise<void> {
    await this.db.deleteFrom('auth_throttle').where('key', '=', key).execute();
  }

  /** Forgets windows that started before `before`. */
  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('auth_throttle').where('window_start', '<', before).execute();
  }
}
