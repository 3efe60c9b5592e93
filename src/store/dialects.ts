/**
 * The store's two Kysely dialects, each extended through Kysely's own interfaces: SQLite keeps
 * prepared statements and takes the write lock when a transaction begins; PostgreSQL's `prepared`
 * instance sends every statement as a named one (database.ts chooses which instance runs what).
 */
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type QueryResult,
  SqliteDialect,
  type SqliteDatabase,
} from 'kysely';
import type pg from 'pg';

const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely's SQLite driver prepares every statement anew, which costs more than running the small
 * indexed queries we send; this database keeps them by SQL text. `onWrite` hears of every write
 * statement as it is prepared (Kysely runs it at once, synchronously).
 */
export function sqliteWithStatementCache(
  sqlite: SQLite.Database,
  onWrite: () => void,
): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text) {
      const cached = cache.get(text);
      // A statement still iterating (a streamed export) cannot be reused concurrently.
      const statement = cached && !cached.busy ? cached : sqlite.prepare(text);
      if (!cached) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      if (!statement.readonly) onWrite();
      return statement;
    },
  };
}

/**
 * SQLite whose transactions begin IMMEDIATE: a deferred one that has read fails at once with
 * SQLITE_BUSY when its first write meets another process's lock, not waiting out the busy
 * timeout. Every transaction here writes, so each takes the lock up front.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    return {
      init: () => driver.init(),
      acquireConnection: () => driver.acquireConnection(),
      beginTransaction: async (connection) => {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      },
      commitTransaction: (connection) => driver.commitTransaction(connection),
      rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
      releaseConnection: (connection) => driver.releaseConnection(connection),
      destroy: () => driver.destroy(),
    };
  }
}

/**
 * PostgreSQL whose connections send each statement as a named (prepared) one: a connection parses
 * and plans it once, not on every run. Reads only, outside transactions (a statement prepared
 * before a migration changed its table would fail in it).
 */
export class NamedStatementsDialect extends PostgresDialect {
  constructor(private readonly pool: pg.Pool) {
    super({ pool });
  }

  override createDriver(): Driver {
    const { pool } = this;
    const names = new StatementNames();
    const outside = () => Promise.reject(new Error('named statements run outside transactions'));
    return {
      init: async () => {},
      acquireConnection: async () => new NamedStatements(await pool.connect(), names),
      beginTransaction: outside,
      commitTransaction: outside,
      rollbackTransaction: outside,
      releaseConnection: async (connection) => (connection as NamedStatements).client.release(),
      destroy: () => pool.end(),
    };
  }
}

/** SQL text → its statement's name, the same on every connection of a pool. */
class StatementNames {
  private readonly names = new Map<string, string>();
  private count = 0;

  of(text: string): string {
    return this.names.get(text) ?? this.renew(text, undefined);
  }

  /** A name no connection has used, unless another caller renewed `stale` already. */
  renew(text: string, stale: string | undefined): string {
    const current = this.names.get(text);
    if (current !== undefined && current !== stale) return current;
    const name = `pulsegate_${++this.count}`;
    this.names.set(text, name);
    return name;
  }
}

class NamedStatements implements DatabaseConnection {
  constructor(
    readonly client: pg.PoolClient,
    private readonly names: StatementNames,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const text = compiled.sql;
    const values = [...compiled.parameters];
    const name = this.names.of(text);
    try {
      return { rows: (await this.client.query({ name, text, values })).rows };
    } catch (error) {
      // Another process changed a table under the statement ("cached plan must not change result
      // type"): prepare it again, under a name no connection has used.
      if ((error as { code?: string }).code !== '0A000') throw error;
      const again = this.names.renew(text, name);
      return { rows: (await this.client.query({ name: again, text, values })).rows };
    }
  }

  streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('named statements are not streamed');
  }
}
