/**
 * Request counters for the API rate limit: hits per key in fixed windows, counted atomically in
 * the database, shared by every process over it.
 *
 * PostgreSQL: the `api_rate_limit` table (migration 005, unlogged). SQLite: a sidecar database
 * next to the main file, `<file>-ratelimit`, opened by every process over that file. Counting in
 * the main file would move its `PRAGMA data_version` (other processes) and this connection's change
 * count on every request, and so drop every cache keyed on them (rows, pages, GraphQL results).
 * Losing the sidecar loses nothing but the current minute's counts.
 *
 * Hits arriving in one event-loop turn are counted together (`TurnBatches`): one upsert per key
 * adds them all, and each request gets its own number of the range it returns. Every request's
 * count stays exact, across processes too, and a busy server pays one write, or one PostgreSQL
 * round trip, per key and turn instead of per request (a single-writer SQLite commit cost about
 * 40 µs of the 200 µs a hot request took).
 */
import SQLite from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import type { Connection } from './database.js';
import type { Database } from './schema.js';

export interface RequestCount {
  /** Hits in the current window, this one included. */
  hits: number;
  windowStart: number;
}

export interface RequestCounters {
  /** One more hit for `key`; a window older than `windowMs` starts over at this one. Atomic. */
  hit(key: string, now: number, windowMs: number): Promise<RequestCount>;
  /** Takes back one hit of `key`'s current window (a request that turned out free). */
  refund(key: string, now: number, windowMs: number): Promise<void>;
  /** Forgets windows that started before `before`. */
  prune(before: number): Promise<void>;
  close(): Promise<void>;
}

/** `amount` hits for `key` at once. */
interface Addition {
  key: string;
  now: number;
  windowMs: number;
  amount: number;
}

/** What the dialects implement: additions in order, each atomic; the counts after each. */
interface CounterTable {
  add(additions: readonly Addition[]): Promise<RequestCount[]>;
  refund(key: string, now: number, windowMs: number): Promise<void>;
  prune(before: number): Promise<void>;
  close(): Promise<void>;
}

export function openRequestCounters(conn: Connection): RequestCounters {
  if (conn.dialect === 'postgres') return new TurnBatches(new TableCounters(conn.db));
  const file = conn.file ?? ':memory:';
  return new TurnBatches(new SidecarCounters(file === ':memory:' ? file : `${file}-ratelimit`));
}

interface Waiting {
  resolve(count: RequestCount): void;
  reject(error: unknown): void;
}

/** Hits of one turn, grouped by key, counted in one addition per key (see the file's comment). */
export class TurnBatches implements RequestCounters {
  private queue = new Map<string, { addition: Addition; waiting: Waiting[] }>();
  /** Additions sent to the database so far (tests read it). */
  additions = 0;

  constructor(private readonly table: CounterTable) {}

  hit(key: string, now: number, windowMs: number): Promise<RequestCount> {
    return new Promise((resolve, reject) => {
      if (this.queue.size === 0) setImmediate(() => void this.flush());
      // Same key, same clock reading, same window: one addition (a new reading starts another).
      const id = `${now}:${windowMs}:${key}`;
      let group = this.queue.get(id);
      if (!group) {
        group = { addition: { key, now, windowMs, amount: 0 }, waiting: [] };
        this.queue.set(id, group);
      }
      group.addition.amount++;
      group.waiting.push({ resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const groups = [...this.queue.values()];
    this.queue = new Map();
    try {
      this.additions += groups.length;
      const counts = await this.table.add(groups.map((g) => g.addition));
      groups.forEach((group, i) => {
        const { hits, windowStart } = counts[i]!;
        // The addition took the range (hits - amount, hits]: one number each, in arrival order.
        const first = hits - group.addition.amount + 1;
        group.waiting.forEach((w, j) => w.resolve({ hits: first + j, windowStart }));
      });
    } catch (error) {
      for (const group of groups) for (const w of group.waiting) w.reject(error);
    }
  }

  refund(key: string, now: number, windowMs: number): Promise<void> {
    return this.table.refund(key, now, windowMs);
  }

  prune(before: number): Promise<void> {
    return this.table.prune(before);
  }

  close(): Promise<void> {
    return this.table.close();
  }
}

class TableCounters implements CounterTable {
  constructor(private readonly db: Kysely<Database>) {}

  async add(additions: readonly Addition[]): Promise<RequestCount[]> {
    const counts: RequestCount[] = [];
    for (const { key, now, windowMs, amount } of additions) {
      const expired = sql<boolean>`api_rate_limit.window_start <= ${now - windowMs}`;
      const row = await this.db
        .insertInto('api_rate_limit')
        .values({ key, hits: amount, window_start: now })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            hits: sql<number>`CASE WHEN ${expired} THEN ${amount} ELSE api_rate_limit.hits + ${amount} END`,
            window_start: sql<number>`CASE WHEN ${expired} THEN ${now} ELSE api_rate_limit.window_start END`,
          }),
        )
        .returning(['hits', 'window_start'])
        .executeTakeFirstOrThrow();
      counts.push({ hits: Number(row.hits), windowStart: Number(row.window_start) });
    }
    return counts;
  }

  async refund(key: string, now: number, windowMs: number): Promise<void> {
    await this.db
      .updateTable('api_rate_limit')
      .set({ hits: sql<number>`hits - 1` })
      .where('key', '=', key)
      .where('window_start', '>', now - windowMs)
      .where('hits', '>', 0)
      .execute();
  }

  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('api_rate_limit').where('window_start', '<', before).execute();
  }

  async close(): Promise<void> {
    // The table lives in the main database, whose connection the store closes.
  }
}

/** The same table in its own SQLite file, through one prepared statement (no query builder). */
class SidecarCounters implements CounterTable {
  private readonly sqlite: SQLite.Database;
  private readonly upsert: SQLite.Statement<
    [string, number, number, number, number, number, number, number]
  >;
  private readonly addAll: (additions: readonly Addition[]) => RequestCount[];
  private readonly sweep: SQLite.Statement<[number]>;
  private readonly giveBack: SQLite.Statement<[string, number]>;

  constructor(path: string) {
    this.sqlite = new SQLite(path);
    this.sqlite.pragma('journal_mode = WAL');
    this.sqlite.pragma('busy_timeout = 5000');
    // Counts need no durability: an OS crash may lose the last few, which only forgives them.
    this.sqlite.pragma('synchronous = OFF');
    this.sqlite.exec(
      `CREATE TABLE IF NOT EXISTS api_rate_limit (
         key TEXT PRIMARY KEY,
         hits INTEGER NOT NULL,
         window_start INTEGER NOT NULL
       )`,
    );
    this.sqlite.exec(
      'CREATE INDEX IF NOT EXISTS api_rate_limit_window ON api_rate_limit (window_start)',
    );
    this.upsert = this.sqlite.prepare(
      `INSERT INTO api_rate_limit (key, hits, window_start) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN window_start <= ? THEN ? ELSE hits + ? END,
         window_start = CASE WHEN window_start <= ? THEN ? ELSE window_start END
       RETURNING hits, window_start`,
    );
    // One transaction (one commit) for a turn's additions.
    this.addAll = this.sqlite.transaction((additions: readonly Addition[]) =>
      additions.map(({ key, now, windowMs, amount }) => {
        const expiredBefore = now - windowMs;
        const row = this.upsert.get(
          key,
          amount,
          now,
          expiredBefore,
          amount,
          amount,
          expiredBefore,
          now,
        ) as { hits: number; window_start: number };
        return { hits: row.hits, windowStart: row.window_start };
      }),
    );
    this.sweep = this.sqlite.prepare('DELETE FROM api_rate_limit WHERE window_start < ?');
    this.giveBack = this.sqlite.prepare(
      'UPDATE api_rate_limit SET hits = hits - 1 WHERE key = ? AND window_start > ? AND hits > 0',
    );
  }

  async add(additions: readonly Addition[]): Promise<RequestCount[]> {
    return this.addAll(additions);
  }

  async refund(key: string, now: number, windowMs: number): Promise<void> {
    this.giveBack.run(key, now - windowMs);
  }

  async prune(before: number): Promise<void> {
    this.sweep.run(before);
  }

  async close(): Promise<void> {
    this.sqlite.close();
  }
}
