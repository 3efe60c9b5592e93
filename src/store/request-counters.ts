/**
 * Request counters for the API rate limit: hits per key in fixed windows, one atomic upsert per
 * request, shared by every process over the database.
 *
 * PostgreSQL: the `api_rate_limit` table (migration 005, unlogged). SQLite: a sidecar database
 * next to the main file, `<file>-ratelimit`, opened by every process over that file. Counting in
 * the main file would move its `PRAGMA data_version` (other processes) and this connection's change
 * count on every request, and so drop every cache keyed on them (rows, pages, GraphQL results).
 * Losing the sidecar loses nothing but the current minute's counts.
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

export function openRequestCounters(conn: Connection): RequestCounters {
  if (conn.dialect === 'postgres') return new TableCounters(conn.db);
  const file = conn.file ?? ':memory:';
  return new SidecarCounters(file === ':memory:' ? file : `${file}-ratelimit`);
}

class TableCounters implements RequestCounters {
  constructor(private readonly db: Kysely<Database>) {}

  async hit(key: string, now: number, windowMs: number): Promise<RequestCount> {
    const expired = sql<boolean>`api_rate_limit.window_start <= ${now - windowMs}`;
    const row = await this.db
      .insertInto('api_rate_limit')
      .values({ key, hits: 1, window_start: now })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          hits: sql<number>`CASE WHEN ${expired} THEN 1 ELSE api_rate_limit.hits + 1 END`,
          window_start: sql<number>`CASE WHEN ${expired} THEN ${now} ELSE api_rate_limit.window_start END`,
        }),
      )
      .returning(['hits', 'window_start'])
      .executeTakeFirstOrThrow();
    return { hits: row.hits, windowStart: row.window_start };
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
class SidecarCounters implements RequestCounters {
  private readonly sqlite: SQLite.Database;
  private readonly upsert: SQLite.Statement<[string, number, number, number, number]>;
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
      `INSERT INTO api_rate_limit (key, hits, window_start) VALUES (?, 1, ?)
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN window_start <= ? THEN 1 ELSE hits + 1 END,
         window_start = CASE WHEN window_start <= ? THEN ? ELSE window_start END
       RETURNING hits, window_start`,
    );
    this.sweep = this.sqlite.prepare('DELETE FROM api_rate_limit WHERE window_start < ?');
    this.giveBack = this.sqlite.prepare(
      'UPDATE api_rate_limit SET hits = hits - 1 WHERE key = ? AND window_start > ? AND hits > 0',
    );
  }

  async hit(key: string, now: number, windowMs: number): Promise<RequestCount> {
    const expiredBefore = now - windowMs;
    const row = this.upsert.get(key, now, expiredBefore, expiredBefore, now) as {
      hits: number;
      window_start: number;
    };
    return { hits: row.hits, windowStart: row.window_start };
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
