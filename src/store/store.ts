/**
 * The store: one connection and every per-concept store built on it. Services receive this one
 * object; nothing else builds a store, and every transaction starts here.
 */
import { sql } from 'kysely';
import { ApplicationStore } from './applications.js';
import { explainConnectionError } from './connection-errors.js';
import { ContentStore } from './content.js';
import {
  type Connection,
  type CountedTable,
  type PoolStats,
  type RowVersion,
  openDatabase,
} from './database.js';
import { EventStore } from './events.js';
import type { ReadStamp } from './per-turn.js';
import { BULK_TABLES } from './bulk.js';
import { migrate, pendingMigrations } from './migrate.js';
import { TALLY_TABLES } from './tallies.js';
import { OAuthStore } from './oauth.js';
import { DeviceGrantStore } from './device-grants.js';
import { IdentityStore } from './identity.js';
import { IdempotencyStore } from './idempotency.js';
import { MemberStore } from './members.js';
import { MilestoneStore } from './milestones.js';
import { NavigationStore } from './navigation.js';
import { NoteStore } from './notes.js';
import { ObjectEventStore } from './object-events.js';
import { IssueStore, MergeRequestStore } from './tracked.js';
import { FeedTokenStore } from './feed-tokens.js';
import { FollowStore } from './follows.js';
import { StarStore } from './stars.js';
import { ProjectStore } from './projects.js';
import { SecretStore } from './secrets.js';
import { SessionStore } from './sessions.js';
import { SigningKeyStore } from './signing-keys.js';
import { ThrottleStore } from './throttle.js';
import { type RequestCounters, openRequestCounters } from './request-counters.js';
import { TokenStore } from './tokens.js';
import { UserStore } from './users.js';
import { WebhookStore } from './webhooks.js';

/** The channel migration 010's trigger notifies on commit of new events. */
const EVENTS_CHANNEL = 'pulsegate_events';

export class Store {
  readonly events: EventStore;
  readonly users: UserStore;
  readonly projects: ProjectStore;
  readonly content: ContentStore;
  readonly tokens: TokenStore;
  readonly applications: ApplicationStore;
  readonly oauth: OAuthStore;
  readonly sessions: SessionStore;
  readonly secrets: SecretStore;
  readonly throttle: ThrottleStore;
  readonly signingKeys: SigningKeyStore;
  readonly identity: IdentityStore;
  readonly deviceGrants: DeviceGrantStore;
  readonly idempotency: IdempotencyStore;
  readonly issues: IssueStore;
  readonly mergeRequests: MergeRequestStore;
  readonly milestones: MilestoneStore;
  readonly notes: NoteStore;
  readonly members: MemberStore;
  readonly feedTokens: FeedTokenStore;
  readonly webhooks: WebhookStore;
  /** Listings of projects, users, namespaces and issues across projects (GitLab's navigation reads). */
  readonly navigation: NavigationStore;
  /** The events of one issue, merge request, milestone, commit or ref (the pages behind links). */
  readonly objectEvents: ObjectEventStore;
  /** Stars, follows, and the per-user version their changes move (migration 024). */
  readonly stars: StarStore;
  readonly follows: FollowStore;
  private counters: RequestCounters | undefined;

  constructor(readonly conn: Connection) {
    const { db, prepared } = conn;
    this.events = new EventStore(
      db,
      conn.dialect,
      conn.rowVersion(['project_members', 'projects']),
      conn.turnReading,
      prepared,
      conn.rowVersion(['project_stars', 'user_follows', 'projects', 'project_members', 'users']),
    );
    this.users = new UserStore(db, conn.rowVersion(['users']), prepared);
    this.projects = new ProjectStore(
      db,
      conn.rowVersion(['projects']),
      conn.rowVersion(['project_members']),
      prepared,
    );
    this.content = new ContentStore(prepared);
    this.tokens = new TokenStore(db, conn.rowVersion(['personal_access_tokens']), prepared);
    this.applications = new ApplicationStore(db);
    this.oauth = new OAuthStore(db);
    this.sessions = new SessionStore(db);
    this.secrets = new SecretStore(db);
    this.throttle = new ThrottleStore(db);
    this.signingKeys = new SigningKeyStore(db);
    this.identity = new IdentityStore(db);
    this.deviceGrants = new DeviceGrantStore(db);
    this.idempotency = new IdempotencyStore(db);
    this.issues = new IssueStore(db, conn.dialect);
    this.mergeRequests = new MergeRequestStore(db, conn.dialect);
    this.milestones = new MilestoneStore(db, conn.dialect);
    this.notes = new NoteStore(db);
    this.members = new MemberStore(db, conn.dialect);
    this.feedTokens = new FeedTokenStore(db);
    this.webhooks = new WebhookStore(db, conn.dialect);
    this.navigation = new NavigationStore(db, conn.dialect);
    this.objectEvents = new ObjectEventStore(db);
    this.stars = new StarStore(db);
    this.follows = new FollowStore(db, conn.dialect);
  }

  /**
   * Runs `work` in one transaction, with a store whose every query runs inside it: all of it
   * commits or none of it does. Nested calls join the outer transaction. Its row caches are off:
   * a transaction reads its own writes, and on PostgreSQL the version read would need a second
   * pool connection while this one is held (fifty concurrent writers emptied the pool).
   */
  async transaction<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    if (this.conn.db.isTransaction) return work(this);
    const uncached = () => () => null;
    // Nor does it share the turn's reading, or read on another pool: it reads its own snapshot,
    // on its own connection.
    return this.conn.db.transaction().execute((trx) => {
      const { turnReading: _shared, ...conn } = this.conn;
      return work(new Store({ ...conn, db: trx, prepared: trx, rowVersion: uncached }));
    });
  }

  get db() {
    return this.conn.db;
  }

  /** The API rate limit's request counters, opened on first use (never when the limit is off). */
  get requestCounters(): RequestCounters {
    this.counters ??= openRequestCounters(this.conn);
    return this.counters;
  }

  /**
   * Whether two reads sent together run at the same time: PostgreSQL's pool answers them over
   * separate connections; SQLite's one embedded connection runs one statement after the other.
   */
  get readsInParallel(): boolean {
    return this.conn.dialect === 'postgres';
  }

  /**
   * A read stamp: taken when a request comes in, it lets every read of that request (its token,
   * its user, its listing's head) be served on PostgreSQL by any turn reading sent since
   * (per-turn.ts), so a request costs one round trip, not one per step. Undefined on SQLite, which
   * reads those values in-process.
   */
  readStamp(): ReadStamp | undefined {
    return this.conn.turnReading?.stamp();
  }

  /** Runs `work` reading as of `stamp` (`readStamp`); as of now without one. */
  readAsOf<R>(stamp: ReadStamp | undefined, work: () => R): R {
    const shared = this.conn.turnReading;
    return shared && stamp !== undefined ? shared.since(stamp, work) : work();
  }

  /** Runs `work` as one caller arriving now (see `readStamp`). */
  arrive<R>(work: () => R): R {
    return this.readAsOf(this.readStamp(), work);
  }

  /** Changes whenever any process commits to the database; null where that cannot be observed. */
  dataVersion(): number | null {
    return this.conn.dataVersion();
  }

  /** Changes whenever a commit changed one of `tables` (row caches); null where unobservable. */
  rowVersion(tables: readonly CountedTable[]): RowVersion {
    return this.conn.rowVersion(tables);
  }

  /**
   * After a bulk load: fold SQLite's write-ahead log back into the database file (readers would
   * otherwise search a log of a million rows), vacuum PostgreSQL's tables, and refresh the
   * planner's statistics on both dialects.
   */
  async settle(): Promise<void> {
    if (this.conn.dialect === 'sqlite') {
      await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(this.db);
      await sql`PRAGMA optimize`.execute(this.db);
    } else {
      // Every table a bulk load writes, vacuumed and analyzed now rather than by autovacuum minutes
      // later (a million fresh rows: it would scan them while the server answers its first
      // readers). Vacuuming sets the visibility map, so index-only walks and counts skip the heap.
      // The tallies too: a bulk load empties and refills them (store/bulk-load.ts), leaving the old
      // rows dead for every count to wade through until vacuumed.
      const tables = [...BULK_TABLES, ...TALLY_TABLES];
      await sql`VACUUM (ANALYZE) ${sql.join(tables.map((t) => sql.table(t)))}`.execute(this.db);
    }
  }

  migrate() {
    return migrate(this.conn);
  }

  /** Code migrations this database has not applied (empty when it is current). */
  pendingMigrations(): Promise<string[]> {
    return pendingMigrations(this.conn);
  }

  /**
   * PostgreSQL: calls `onSignal` whenever any process commits new events (the trigger of migration
   * 010 notifies), over a dedicated connection; null on SQLite, where `dataVersion` tells instead.
   */
  async listenForEvents(
    onSignal: () => void,
    onError: (error: unknown) => void,
  ): Promise<{ close(): Promise<void> } | null> {
    if (!this.conn.listen) return null;
    const own: { schema?: string } = {};
    const listener = await this.conn.listen(
      EVENTS_CHANNEL,
      (payload) => {
        // Before the schema is known, every signal counts (a spurious round costs one query).
        if (own.schema === undefined || payload === own.schema) onSignal();
      },
      onError,
    );
    own.schema = listener.schema;
    return listener;
  }

  /** One round trip: `select 1`. Throws when the database cannot be reached. */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  /** PostgreSQL's connection pool right now; null on SQLite (one embedded connection). */
  poolStats(): PoolStats | null {
    return this.conn.poolStats();
  }

  /** Where a failed idle PostgreSQL connection is reported (database.ts `onIdleError`). */
  onIdleError(report: (error: unknown) => void): void {
    this.conn.onIdleError?.(report);
  }

  async close(): Promise<void> {
    await this.counters?.close();
    this.counters = undefined;
    await this.conn.close();
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
