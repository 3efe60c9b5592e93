/**
 * The range of every row id and iid. Ids are 32-bit integers on PostgreSQL (`serial`/`integer`
 * columns), so no row on either dialect has a larger one, and a larger number names nothing: it is
 * a miss (404, null), never a lookup, which PostgreSQL would refuse with an error.
 */
export const MAX_ID = 2 ** 31 - 1;

/** Whether `n` may name a stored row: an integer from 1 to MAX_ID. */
export function isRowId(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= MAX_ID;
}
