/**
 * Opens the database named by a URL: `sqlite:<path>` (the default, embedded) or `postgres://…`.
 * Nothing outside store/ knows which dialect runs.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import {
  ImmediateSqliteDialect,
  NamedStatementsDialect,
  sqliteWithStatementCache,
} from './dialects.js';
import type { SharedRead } from './per-turn.js';
import type { CountedTable, RowVersion, RowVersionValue } from './row-cache.js';
import type { Database } from './schema.js';
import { type TurnReading, turnReading as sharedTurnReading } from './turn-reading.js';

export type { CountedTable, RowVersion, RowVersionValue } from './row-cache.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Connection {
  db: Kysely<Database>;
  dialect: Dialect;
  /** A value that changes whenever any connection commits a write; null where none is cheap. */
  dataVersion(): number | null;
  /**
   * A reader of a value that changes whenever a committed write changed one of `tables` (their
   * change counters, migration 015), for row caches; it reads null where the counters are missing.
   * SQLite answers at once; PostgreSQL reads its one counter once per event-loop turn.
   */
  rowVersion(tables: readonly CountedTable[]): RowVersion;
  /**
   * PostgreSQL outside a transaction: what readers check before answering (the settled head, the
   * listing version, the row counter), read in one statement once per event-loop turn and shared
   * by every caller of that turn, or by every caller that arrived before it was sent (per-turn.ts
   * `arrive`).
   * Absent on SQLite, which reads each of them in-process for free.
   */
  turnReading?: SharedRead<TurnReading>;
  /**
   * Where statements whose best plan does not depend on their parameters run: reads of rows by key
   * and listing counts. PostgreSQL: named statements on a pool of their own whose sessions keep one
   * generic plan (`plan_cache_mode = force_generic_plan`), so each connection plans each once (see
   * docs/listing-caches.md). SQLite, and in a transaction: `db`.
   */
  prepared: Kysely<Database>;
  /** SQLite: the database file (or `:memory:`); files kept beside it are named after it. */
  file?: string;
  /** PostgreSQL: the pool's connections right now; SQLite: null (one embedded connection). */
  poolStats(): PoolStats | null;
  /**
   * PostgreSQL: who hears of an idle pooled connection that failed (the server restarted, the
   * backend was terminated, the network dropped). The pool drops it and the next query opens
   * another; until a listener is set, the failure is dropped silently. SQLite: absent.
   */
  onIdleError?(report: (error: unknown) => void): void;
  /**
   * PostgreSQL: a dedicated connection (outside the pool) that LISTENs on `channel` and calls
   * `onNotify` with each notification's payload; `onError` when that connection fails. SQLite:
   * absent (there is no server to notify anyone).
   */
  listen?(
    channel: string,
    onNotify: (payload: string) => void,
    onError: (error: unknown) => void,
  ): Promise<Listener>;
  close(): Promise<void>;
}

export interface Listener {
  /** The schema this connection works in (notifications carry the writer's). */
  schema: string;
  close(): Promise<void>;
}

export interface PoolStats {
  /** Open connections (idle and checked out). */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  max: number;
}

export interface ParsedUrl {
  dialect: Dialect;
  /** SQLite file path, or the PostgreSQL connection string without our own `schema` parameter. */
  target: string;
  /** PostgreSQL schema to use (created when missing); tests give each run its own. */
  schema?: string;
}

export function parseDatabaseUrl(url: string): ParsedUrl {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema') ?? undefined;
    parsed.searchParams.delete('schema');
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new Error(`invalid schema name in DATABASE_URL: ${schema}`);
    }
    return { dialect: 'postgres', target: parsed.toString(), ...(schema ? { schema } : {}) };
  }
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path) throw new Error('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/pg.db');
    return { dialect: 'sqlite', target: path };
  }
  throw new Error(`unsupported DATABASE_URL (use sqlite:<path> or postgres://…): ${url}`);
}

export async function openDatabase(url: string): Promise<Connection> {
  const parsed = parseDatabaseUrl(url);
  return parsed.dialect === 'sqlite' ? openSqlite(parsed.target) : openPostgres(parsed);
}

function openSqlite(path: string): Connection {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // WAL + NORMAL is durable across process crashes (only an OS crash can lose the last commit).
  sqlite.pragma('synchronous = NORMAL');
  // A modest page cache: the kernel already caches the file, and this one counts against RSS.
  sqlite.pragma('cache_size = -16384');
  const versionStmt = sqlite.prepare('PRAGMA data_version').pluck();
  const changes = sqlite.prepare('SELECT total_changes()').pluck();
  // One request asks for the version several times (token, user, project, listing caches); it is
  // read once per event-loop turn, and forgotten as soon as this connection prepares a write.
  let memo: number | null = null;
  const forget = () => {
    memo = null;
  };
  const dataVersion = () => {
    if (memo === null) {
      // data_version moves on commits by other connections, total_changes on our own.
      memo = (versionStmt.get() as number) * 1e9 + (changes.get() as number);
      setImmediate(forget);
    }
    return memo;
  };
  // The tables' change counters, read again only when something committed (data_version moved).
  let countersAt: number | null = null;
  let counters: Map<string, number> | null = null;
  let countersStmt: SQLite.Statement | null = null;
  const readCounters = () => {
    const version = dataVersion();
    if (version !== countersAt) {
      countersAt = version;
      try {
        countersStmt ??= sqlite.prepare('SELECT name, value FROM row_versions');
        const rows = countersStmt.all() as Array<{
          name: string;
          value: number;
        }>;
        counters = new Map(rows.map((r) => [r.name, r.value]));
      } catch {
        // Before migration 015: no counters, so any commit counts.
        counters = null;
      }
    }
    return counters;
  };
  const rowVersion =
    (tables: readonly CountedTable[]): RowVersion =>
    () => {
      const found = readCounters();
      if (!found) return dataVersion();
      let key = '';
      for (const table of tables) key += `${found.get(table) ?? -1}:`;
      return key;
    };
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: sqliteWithStatementCache(sqlite, forget) }),
  });
  return {
    db,
    prepared: db,
    dialect: 'sqlite',
    dataVersion,
    rowVersion,
    file: path,
    poolStats: () => null,
    close: () => db.destroy(),
  };
}

/** PostgreSQL's int8 as a JavaScript number; an error past Number.MAX_SAFE_INTEGER. */
export function int8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) {
    throw new RangeError(`int8 value ${value} is beyond Number.MAX_SAFE_INTEGER`);
  }
  return n;
}

const POOL_MAX = 10;
/** Connections of the `prepared` pool: its reads are short, and each connection plans each once. */
const PREPARED_POOL_MAX = 4;

async function openPostgres(parsed: ParsedUrl): Promise<Connection> {
  const types = {
    getTypeParser(oid: number, format?: string) {
      // int8 (ids since migration 026, counts, epoch ms) as numbers, so every view keeps plain
      // numbers; one past 2^53 would be silently rounded to another id, so it is refused.
      if (oid === 20) return int8;
      return pg.types.getTypeParser(oid, format as 'text');
    },
  };
  // Neither JIT nor parallel workers: every statement here is a short index walk, and where
  // PostgreSQL's estimate says otherwise (a walk with a large LIMIT, a trigger planned with
  // sequential scans disabled) starting workers or compiling the plan took 50–400 ms for a
  // statement that runs in under one.
  const options = [
    parsed.schema ? `-c search_path=${parsed.schema}` : '',
    '-c jit=off',
    '-c max_parallel_workers_per_gather=0',
  ]
    .filter(Boolean)
    .join(' ');
  if (parsed.schema) {
    const client = new pg.Client({ connectionString: parsed.target });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${parsed.schema}`);
    } finally {
      await client.end();
    }
  }
  // Unheard, a pool's 'error' event (an idle connection failing) would end the process.
  let idleError: (error: unknown) => void = () => {};
  // Both pools open connections as they need them.
  const openPool = (max: number, settings: string) => {
    const opened = new pg.Pool({
      connectionString: parsed.target,
      types: types as never,
      max,
      // An unroutable host fails within seconds instead of hanging the start (and the CLI).
      connectionTimeoutMillis: 10_000,
      options: settings,
    });
    opened.on('error', (error) => idleError(error));
    return opened;
  };
  const pool = openPool(POOL_MAX, options);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  await sql`select 1`.execute(db);
  const preparedPool = openPool(
    PREPARED_POOL_MAX,
    `${options} -c plan_cache_mode=force_generic_plan`,
  );
  const prepared = new Kysely<Database>({ dialect: new NamedStatementsDialect(preparedPool) });
  const turnReading = sharedTurnReading(prepared);
  // The row counter; null when it cannot be read (before migration 015: nothing is cached then).
  const rowCounter = (): Promise<RowVersionValue> =>
    turnReading().then(
      (reading) => reading.rowVersion,
      () => null,
    );
  return {
    db,
    dialect: 'postgres',
    dataVersion: () => null,
    rowVersion: () => rowCounter,
    turnReading,
    prepared,
    onIdleError: (report) => {
      idleError = report;
    },
    poolStats: () => ({
      total: pool.totalCount + preparedPool.totalCount,
      idle: pool.idleCount + preparedPool.idleCount,
      waiting: pool.waitingCount + preparedPool.waitingCount,
      max: POOL_MAX + PREPARED_POOL_MAX,
    }),
    listen: async (channel, onNotify, onError) => {
      const client = new pg.Client({
        connectionString: parsed.target,
        connectionTimeoutMillis: 10_000,
        options,
      });
      client.on('error', onError);
      client.on('notification', (message) => {
        if (message.channel === channel) onNotify(message.payload ?? '');
      });
      await client.connect();
      const schema = (await client.query<{ s: string }>('select current_schema() as s')).rows[0]!.s;
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
      return {
        schema,
        close: async () => {
          client.removeListener('error', onError);
          // A failed connection may throw again on end; it is being dropped either way.
          client.on('error', () => {});
          await client.end().catch(() => {});
        },
      };
    },
    close: async () => {
      await Promise.all([db.destroy(), prepared.destroy()]);
    },
  };
}
