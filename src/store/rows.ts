/**
 * The lookups every store makes: one row by its key, the rows whose key is one of many. Typed by
 * the table and the columns named, so a store's lookup is one line that says which key it uses.
 */
import {
  type Insertable,
  type InsertObject,
  type Kysely,
  type Selectable,
  type SelectType,
  type UpdateObject,
  type Updateable,
  sql,
} from 'kysely';
import { RowCache, type RowVersion } from './row-cache.js';
import type { Database } from './schema.js';
import { matchesNoRow } from './text.js';

type Table = keyof Database;
type Row<T extends Table> = Selectable<Database[T]>;
type Column<T extends Table> = keyof Database[T] & string;
type Value<T extends Table, C extends Column<T>> = SelectType<Database[T][C]>;

/** `table`'s rows whose columns hold `key`'s values, nothing selected yet. */
function selectByKey(db: Kysely<Database>, table: Table, key: Record<string, unknown>) {
  // Widened to every table: Kysely cannot type a query over one chosen by a type parameter.
  let query = db.selectFrom(table);
  for (const [column, value] of Object.entries(key)) {
    query = query.where(db.dynamic.ref(column), '=', value);
  }
  return query;
}

/** The row of `table` whose columns hold `key`'s values (a unique key), or undefined. */
export function rowBy<T extends Table, C extends Column<T>>(
  db: Kysely<Database>,
  table: T,
  key: { [K in C]: Value<T, K> },
): Promise<Row<T> | undefined> {
  const query = selectByKey(db, table, key).selectAll();
  return query.executeTakeFirst() as Promise<Row<T> | undefined>;
}

/**
 * The row of `table` whose text `column` is `value` whatever the case (usernames and paths, as
 * GitLab finds them), or undefined.
 */
export function rowByFolded<T extends Table>(
  db: Kysely<Database>,
  table: T,
  column: Column<T>,
  value: string,
): Promise<Row<T> | undefined> {
  if (matchesNoRow(value)) return Promise.resolve(undefined);
  const from: Table = table;
  const query = db
    .selectFrom(from)
    .selectAll()
    .where(sql`lower(${sql.ref(column)})`, '=', value.toLowerCase());
  return query.executeTakeFirst() as Promise<Row<T> | undefined>;
}

/** The rows of `table` whose columns hold `key`'s values, in `order` of their ids. */
export function rowsBy<T extends Table, C extends Column<T>>(
  db: Kysely<Database>,
  table: T,
  key: { [K in C]: Value<T, K> },
  order: 'asc' | 'desc',
): Promise<Row<T>[]> {
  const query = selectByKey(db, table, key).selectAll();
  return query.orderBy(db.dynamic.ref('id'), order).execute() as Promise<Row<T>[]>;
}

/** The rows of `table` whose `column` is one of `values`; no query at all for none. */
export async function rowsIn<T extends Table, C extends Column<T>>(
  db: Kysely<Database>,
  table: T,
  column: C,
  values: readonly Value<T, C>[],
): Promise<Row<T>[]> {
  if (values.length === 0) return [];
  const from: Table = table;
  const query = db
    .selectFrom(from)
    .selectAll()
    .where(db.dynamic.ref(column), 'in', [...values]);
  return query.execute() as Promise<Row<T>[]>;
}

/** Whether `table` has a row whose columns hold `key`'s values; reads no column of it. */
export async function hasRow<T extends Table, C extends Column<T>>(
  db: Kysely<Database>,
  table: T,
  key: { [K in C]: Value<T, K> },
): Promise<boolean> {
  const query = selectByKey(db, table, key).select(sql<number>`1`.as('one'));
  return (await query.executeTakeFirst()) !== undefined;
}

/**
 * Inserts `row` unless a row with the same `unique` columns exists: one statement, so two
 * requests at once make one row and one false. True when it inserted.
 */
export async function insertOnce<T extends Table>(
  db: Kysely<Database>,
  table: T,
  row: Insertable<Database[T]>,
  unique: readonly Column<T>[],
): Promise<boolean> {
  const into: Table = table;
  const result = await db
    .insertInto(into)
    .values(row as InsertObject<Database, Table>)
    .onConflict((oc) => oc.columns(unique as never[]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Sets `patch` on the rows of `table` that match `key`; how many it changed. */
export async function updateBy<T extends Table, C extends Column<T>>(
  db: Kysely<Database>,
  table: T,
  key: { [K in C]: Value<T, K> },
  patch: Updateable<Database[T]>,
): Promise<number> {
  const from: Table = table;
  let query = db.updateTable(from).set(patch as UpdateObject<Database, Table>);
  for (const [column, value] of Object.entries(key)) {
    query = query.where(db.dynamic.ref(column), '=', value);
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Deletes the rows of `table` that match `key`; how many there were. */
export async function deleteBy<T extends Table, C extends Column<T>>(
  db: Kysely<Database>,
  table: T,
  key: { [K in C]: Value<T, K> },
): Promise<number> {
  const from: Table = table;
  let query = db.deleteFrom(from);
  for (const [column, value] of Object.entries(key)) {
    query = query.where(db.dynamic.ref(column), '=', value);
  }
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The rows of a table with a numeric `id`, read by id through a RowCache (users and projects are
 * read on every request): one query per row until the table's change counter moves.
 */
export class RowsById<T extends 'users' | 'projects'> {
  private readonly cache: RowCache<number, Row<T> | undefined>;

  constructor(
    /** Where its reads by key run: `Connection.prepared`. */
    protected readonly reads: Kysely<Database>,
    private readonly table: T,
    rowVersion: RowVersion,
  ) {
    this.cache = new RowCache(rowVersion);
  }

  byId(id: number): Promise<Row<T> | undefined> {
    // The casts: Kysely cannot type a key over a table chosen by a type parameter (see rowBy).
    return this.cache.get(id, () => rowBy(this.reads, this.table, { id } as never));
  }

  /** The rows of `ids` that exist, in no stated order. */
  byIds(ids: readonly number[]): Promise<Row<T>[]> {
    return this.cache.rows(
      ids,
      (missing) => rowsIn(this.reads, this.table, 'id' as Column<T>, missing as never),
      (row) => (row as { id: number }).id,
    );
  }
}
