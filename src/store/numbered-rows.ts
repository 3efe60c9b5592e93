/**
 * What issues, merge requests and milestones share: rows numbered per project (`iid`), with a
 * state, created, found, changed, listed and counted the same way. Each kind's store extends
 * `NumberedRows` with what only it has.
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Dialect } from './database.js';
import { type IidTable, nextIid } from './iids.js';
import { countRows } from './listing-sql.js';
import { rowBy } from './rows.js';
import type { Database } from './schema.js';

/** The filters every numbered listing takes. */
export interface NumberedListQuery {
  projectId: number;
  state?: string | undefined;
  iids?: number[] | undefined;
  /** Newest first unless asked. */
  sort?: 'asc' | 'desc';
  offset: number;
  limit: number;
}

/** A row of the table chosen. */
type Row<T extends IidTable> = Selectable<Database[T]>;

export class NumberedRows<T extends IidTable> {
  /**
   * The table as any of the three: Kysely types a query over a union of tables by their shared
   * columns, but not over one chosen by a type parameter. Rows come back as `T`'s own.
   */
  private readonly table: IidTable;

  constructor(
    protected readonly db: Kysely<Database>,
    protected readonly dialect: Dialect,
    table: T,
  ) {
    this.table = table;
  }

  async create(values: Omit<Insertable<Database[T]>, 'iid'> & { project_id: number }) {
    const iid = await nextIid(this.db, this.dialect, this.table, values.project_id);
    const row = this.db
      .insertInto(this.table)
      .values({ ...values, iid } as Insertable<Database[IidTable]>)
      .returningAll()
      .executeTakeFirstOrThrow();
    return row as Promise<Row<T>>;
  }

  /**
   * One row of the project, by `iid` or by global `id`. `lock`: a write that decides by the row's
   * state takes its row lock on PostgreSQL (SQLite writers already run one at a time), so a
   * parallel write waits and then sees what this one did.
   */
  protected inProjectBy(by: 'iid' | 'id', projectId: number, value: number, lock: boolean) {
    const row = this.db
      .selectFrom(this.table)
      .selectAll()
      .where('project_id', '=', projectId)
      .where(by, '=', value)
      .$if(lock && this.dialect === 'postgres', (query) => query.forUpdate())
      .executeTakeFirst();
    return row as Promise<Row<T> | undefined>;
  }

  byId(id: number): Promise<Row<T> | undefined> {
    return rowBy(this.db, this.table, { id }) as Promise<Row<T> | undefined>;
  }

  update(id: number, patch: Updateable<Database[T]>): Promise<Row<T>> {
    return this.updateWhere(id, undefined, patch).executeTakeFirstOrThrow() as Promise<Row<T>>;
  }

  /** Changes the row only if it is still in `state`: undefined when another write moved it. */
  updateInState(id: number, state: string, patch: Updateable<Database[T]>) {
    return this.updateWhere(id, state, patch).executeTakeFirst() as Promise<Row<T> | undefined>;
  }

  private updateWhere(id: number, state: string | undefined, patch: Updateable<Database[T]>) {
    return this.db
      .updateTable(this.table)
      .set(patch)
      .where('id', '=', id)
      .$if(state !== undefined, (query) => query.where('state', '=', state as string))
      .returningAll();
  }

  /** The listing's rows, in the shared columns' terms; a kind narrows it further. */
  protected filtered(q: NumberedListQuery) {
    let query = this.db.selectFrom(this.table).where('project_id', '=', q.projectId);
    if (q.state) query = query.where('state', '=', q.state);
    if (q.iids) query = query.where('iid', 'in', q.iids.length > 0 ? q.iids : [-1]);
    return query;
  }

  list(q: NumberedListQuery): Promise<Row<T>[]> {
    const rows = this.filtered(q)
      .selectAll()
      .orderBy('id', q.sort ?? 'desc')
      .limit(q.limit)
      .offset(q.offset)
      .execute();
    return rows as Promise<Row<T>[]>;
  }

  count(q: NumberedListQuery): Promise<number> {
    return countRows(this.filtered(q));
  }
}
