/** Failed-attempt counters in fixed windows, shared by every process over the database. */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

export interface CounterRow {
  failures: number;
  window_start: number;
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
          window_start: sql<number>`CASE WHEN ${expired} THEN ${now} ELSE auth_throttle.window_start END`,
        }),
      )
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
