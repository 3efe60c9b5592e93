/** The store: one connection and the per-concept stores built on it. */
import { sql } from 'kysely';
import { explainConnectionError } from './connection-errors.js';
import { ContentStore } from './content.js';
import { type Connection, openDatabase } from './database.js';
import { EventStore } from './events.js';
import { migrate } from './migrate.js';
import { ProjectStore } from './projects.js';
import { TokenStore } from './tokens.js';
import { UserStore } from './users.js';

export class Store {
  readonly events: EventStore;
  readonly users: UserStore;
  readonly projects: ProjectStore;
  readonly content: ContentStore;
  readonly tokens: TokenStore;

  constructor(readonly conn: Connection) {
    this.events = new EventStore(conn.db);
    const version = () => conn.dataVersion();
    this.users = new UserStore(conn.db, version);
    this.projects = new ProjectStore(conn.db, version);
    this.content = new ContentStore(conn.db);
    this.tokens = new TokenStore(conn.db, version);
  }

  get db() {
    return this.conn.db;
  }

  get dialect() {
    return this.conn.dialect;
  }

  /** Changes whenever any process commits to the database; null where that cannot be observed. */
  dataVersion(): number | null {
    return this.conn.dataVersion();
  }

  /**
   * After a bulk load: fold SQLite's write-ahead log back into the database file (readers would
   * otherwise search a log of a million rows) and refresh the planner's statistics on both dialects.
   */
  async settle(): Promise<void> {
    if (this.dialect === 'sqlite') {
      await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(this.db);
      await sql`PRAGMA optimize`.execute(this.db);
    } else {
      await sql`ANALYZE`.execute(this.db);
    }
  }

  migrate() {
    return migrate(this.conn);
  }

  close() {
    return this.conn.close();
  }
}

export async function openStore(url: string, options: { migrate?: boolean } = {}): Promise<Store> {
  let conn: Connection;
  try {
    conn = await openDatabase(url);
  } catch (error) {
    throw explainConnectionError(error, url) ?? error;
  }
  const store = new Store(conn);
  if (options.migrate !== false) await store.migrate();
  return store;
}
