/**
 * Opens the database named by a URL: `sqlite:<path>` (the default, embedded) or `postgres://…`.
 * Nothing outside store/ knows which dialect runs.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { SETTLED_HEAD_COLUMNS } from './events.js';
import { PLAN_ONCE } from './plan-once.js';
import { ALL_TABLES, type COUNTED_TABLES } from './migrations/015_row_versions.js';
import { type SharedRead, sharedPerTurn } from './per-turn.js';
import type { Database } from './schema.js';

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
   * PostgreSQL outside a transaction: a small pool whose sessions keep one generic plan for every
   * statement (`plan_cache_mode = force_generic_plan`), for the statements marked `PLAN_ONCE`
   * (plan-once.ts). On the main pool PostgreSQL plans a named statement afresh for its first five
   * runs on each of its ten connections, so a count shape was still planned on most runs after
   * minutes of load; here each connection plans it once. Absent on SQLite.
   */
  planOnce?: Kysely<Database>;
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

/** One statement's view (one snapshot) of the values readers check every turn. */
export interface TurnReading {
  /** The highest committed event id (store/events.ts `head`). */
  headId: number;
  /** The all-projects listing epoch and the event deletions (listing_epochs rows 0 and -1). */
  epoch: number;
  deletions: number;
  /** The listing version (migration 009). */
  listingVersion: number;
  /** The row counter (migration 015). */
  rowVersion: number;
  /** Which shared read this is (per-turn.ts). */
  seq: number;
}

/** Tables with change counters (migration 015). */
export type CountedTable = (typeof COUNTED_TABLES)[number];

/** What a row cache is valid for: equal values, same rows; null: do not cache. */
export type RowVersion = () => RowVersionValue | Promise<RowVersionValue>;
export type RowVersionValue = number | string | null;

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
    dialect: new SqliteDialect({ database: withStatementCache(sqlite, forget) }),
  });
  return {
    db,
    dialect: 'sqlite',
    dataVersion,
    rowVersion,
    file: path,
    poolStats: () => null,
    close: () => db.destroy(),
  };
}

const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely's SQLite driver prepares every statement anew; preparing costs more than running the
 * small indexed queries we send. Reusing prepared statements by SQL text removes that cost.
 */
function withStatementCache(sqlite: SQLite.Database, onWrite: () => void): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = (text: string) => {
    // Kysely begins SQLite transactions deferred: the first write then takes the write lock, and
    // if another process holds it SQLite fails at once with SQLITE_BUSY, not waiting out the busy
    // timeout, because this transaction has already read an older snapshot. Every transaction
    // here writes, so each takes the lock up front, where the busy timeout applies.
    const source = text === 'begin' ? 'begin immediate' : text;
    const statement = cachedStatement(source);
    // Kysely runs a statement right after preparing it, synchronously: a write prepared now has
    // run before anyone can read the version again.
    if (!statement.readonly) onWrite();
    return statement;
  };
  const cachedStatement = (source: string) => {
    const cached = cache.get(source);
    // A statement still iterating (a streamed export) cannot be reused concurrently.
    if (cached && !cached.busy) return cached;
    const statement = sqlite.prepare(source);
    if (!cached) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(source, statement);
    }
    return statement;
  };
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property === 'prepare') return prepare;
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

const POOL_MAX = 10;
/** Connections of the `planOnce` pool: counts are short, and each connection plans each shape. */
const PLAN_ONCE_POOL_MAX = 3;

/**
 * Reads of rows by key (tokens, users, projects, memberships, a page's issues and notes) as named
 * statements: each connection parses and plans one of them once, not on every request, which on a
 * cached listing was most of PostgreSQL's work. Only reads that leave the event log alone, and
 * those marked `PLAN_ONCE`: a listing walk's plan depends on its parameters (which project, how
 * deep), so those are planned anew. PostgreSQL plans a named statement afresh for its first five
 * runs on a connection, then keeps a generic plan when that costs no more. Never inside a
 * transaction: migrations run in transactions, and a statement prepared before a table changed
 * shape would fail afterwards.
 */
function prepareRowReads(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const names = new Map<string, string>();
  let inTransaction = false;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text === 'string') {
      if (/^(begin|start transaction)\b/i.test(text)) inTransaction = true;
      else if (/^(commit|rollback)\b(?!\s+to\b)/i.test(text)) inTransaction = false;
    }
    if (
      inTransaction ||
      args.length !== 2 ||
      typeof text !== 'string' ||
      !Array.isArray(values) ||
      !(text.startsWith(PLAN_ONCE) || (/^select /i.test(text) && !text.includes('"events"')))
    ) {
      return query(...args);
    }
    let name = names.get(text);
    if (name === undefined) {
      name = `pulsegate_${createHash('sha1').update(text).digest('hex')}`;
      names.set(text, name);
    }
    if (name === '') return query(text, values);
    return (query({ name, text, values }) as Promise<unknown>).catch((error: unknown) => {
      // Another process migrated a table under a prepared read ("cached plan must not change
      // result type"): read it unnamed from now on, on this connection.
      if ((error as { code?: string }).code !== '0A000') throw error;
      names.set(text, '');
      return query(text, values);
    });
  };
}

async function openPostgres(parsed: ParsedUrl): Promise<Connection> {
  const types = {
    getTypeParser(oid: number, format?: string) {
      // int8 (counts, epoch ms) as numbers: every value we store fits in 2^53.
      if (oid === 20) return (value: string) => Number(value);
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
  // Both pools open connections as they need them, each prepared for named reads.
  const openPool = (max: number, settings: string) => {
    const opened = new pg.Pool({
      connectionString: parsed.target,
      types: types as never,
      max,
      // An unroutable host fails within seconds instead of hanging the start (and the CLI).
      connectionTimeoutMillis: 10_000,
      options: settings,
    });
    opened.on('connect', prepareRowReads);
    opened.on('error', (error) => idleError(error));
    return opened;
  };
  const pool = openPool(POOL_MAX, options);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  await sql`select 1`.execute(db);
  const planOncePool = openPool(
    PLAN_ONCE_POOL_MAX,
    `${options} -c plan_cache_mode=force_generic_plan`,
  );
  const planOnce = new Kysely<Database>({ dialect: new PostgresDialect({ pool: planOncePool }) });
  // Three reads every request needs, as one round trip per event-loop turn instead of three; a
  // named statement, so each connection parses and plans it once rather than on every request.
  const turnReading = sharedPerTurn(async (seq): Promise<TurnReading> => {
    const { rows } = await pool.query<
      Record<'id' | 'epoch' | 'deletions' | 'version' | 'rowVersion', number | null>
    >({
      name: 'pulsegate_turn_reading',
      text: `SELECT ${SETTLED_HEAD_COLUMNS},
        (SELECT value FROM row_versions WHERE name = $1) AS "rowVersion"`,
      values: [ALL_TABLES],
    });
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
    planOnce,
    onIdleError: (report) => {
      idleError = report;
    },
    poolStats: () => ({
      total: pool.totalCount + planOncePool.totalCount,
      idle: pool.idleCount + planOncePool.idleCount,
      waiting: pool.waitingCount + planOncePool.waitingCount,
      max: POOL_MAX + PLAN_ONCE_POOL_MAX,
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
      await Promise.all([db.destroy(), planOnce.destroy()]);
    },
  };
}
