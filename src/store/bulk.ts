/**
 * Batched multi-row inserts (import, seed). Statements are built by Kysely once per batch shape
 * and reused with new parameters: compiling a 1,000-row insert for each of a million rows' batches
 * would cost more than running it.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Tables the import/export format covers, in dependency order (parents first). */
export const BULK_TABLES = [
  'users',
  'projects',
  'project_members',
  'milestones',
  'issues',
  'merge_requests',
  'merge_request_approvals',
  'snippets',
  'notes',
  'events',
  'push_event_payloads',
  'personal_access_tokens',
  'oauth_applications',
  'project_stars',
  'user_follows',
] as const;
export type BulkTable = (typeof BULK_TABLES)[number];

/**
 * The columns a bulk insert writes per table, in insert order. They come from the caller (the
 * import format's definitions say which columns a record fills); columns left out take their
 * defaults.
 */
export type BulkColumns = { [T in BulkTable]: readonly (keyof Database[T] & string)[] };

/** Well under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters per statement. */
const MAX_PARAMS = 16_000;
const MAX_ROWS = 1_000;

/**
 * Buffers rows per table and writes them as multi-row inserts. When any buffer fills, every
 * buffer is written in dependency order, so a child row never reaches the database before its
 * parent (foreign keys are checked per statement on both dialects).
 */
export class BulkWriter {
  private readonly buffers = new Map<BulkTable, unknown[][]>();
  private readonly statements = new Map<string, string>();
  private isFull = false;
  /** The projects of the events written so far (their tallies are counted after the load). */
  readonly eventProjects = new Set<number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly columns: BulkColumns,
    /** Called before events are written with the lowest and highest of their ids (partitions). */
    private readonly beforeEvents?: (from: number, through: number) => Promise<void>,
  ) {}

  private rowsPerStatement(table: BulkTable): number {
    return Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / this.columns[table].length));
  }

  /**
   * Buffers a row, its values in the table's column order; the caller flushes once `full` says a
   * statement's worth is waiting.
   */
  add(table: BulkTable, values: unknown[]): void {
    let buffer = this.buffers.get(table);
    if (!buffer) this.buffers.set(table, (buffer = []));
    buffer.push(values);
    if (buffer.length >= this.rowsPerStatement(table)) this.isFull = true;
  }

  /** True when some table has a full statement's worth of rows buffered. */
  get full(): boolean {
    return this.isFull;
  }

  async flush(): Promise<void> {
    for (const table of BULK_TABLES) {
      const buffer = this.buffers.get(table);
      if (!buffer || buffer.length === 0) continue;
      const size = this.rowsPerStatement(table);
      for (let start = 0; start < buffer.length; start += size) {
        const chunk = buffer.slice(start, start + size);
        if (table === 'events') await this.writingEvents(chunk);
        await this.db.executeQuery(
          CompiledQuery.raw(this.statement(table, chunk.length), chunk.flat()),
        );
      }
      buffer.length = 0;
    }
    this.isFull = false;
  }

  private async writingEvents(chunk: unknown[][]): Promise<void> {
    const project = this.columns.events.indexOf('project_id');
    for (const row of chunk) this.eventProjects.add(row[project] as number);
    if (!this.beforeEvents) return;
    const at = this.columns.events.indexOf('id');
    const ids = chunk.map((row) => row[at]).filter((id): id is number => typeof id === 'number');
    if (ids.length > 0) await this.beforeEvents!(Math.min(...ids), Math.max(...ids));
  }

  /** The insert text for `rows` rows of `table`, built by Kysely once per shape. */
  private statement(table: BulkTable, rows: number): string {
    const key = `${table}:${rows}`;
    let text = this.statements.get(key);
    if (text === undefined) {
      const blank = Object.fromEntries(this.columns[table].map((c) => [c, null]));
      text = this.db
        .insertInto(table)
        .values(Array.from({ length: rows }, () => blank) as never)
        .compile().sql;
      this.statements.set(key, text);
    }
    return text;
  }
}

/** Tables keyed by a pair of ids rather than their own `id`. */
export const PAIR_TABLES = [
  'project_members',
  'merge_request_approvals',
  'project_stars',
  'user_follows',
] as const;

/** Tables keyed by an integer `id`. */
export type IdTable = Exclude<BulkTable, (typeof PAIR_TABLES)[number] | 'push_event_payloads'>;
