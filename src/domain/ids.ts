/**
 * The range of row ids and iids. A number outside its range names nothing: it is a miss (404,
 * null), never a lookup, which PostgreSQL would refuse with an error.
 *
 * - Tables that grow with people and projects (users, projects, milestones, snippets, hooks,
 *   applications) and every iid keep 32-bit ids on PostgreSQL (`serial`/`integer`), as GitLab's
 *   do: up to MAX_ID.
 * - Tables that grow with activity have 64-bit ids on PostgreSQL since migration 026 (events,
 *   issues, merge requests, notes, webhook deliveries; SQLite's integers are 64-bit anyway): up to
 *   MAX_BIG_ID, the largest integer a JSON number (and a JavaScript one) holds exactly, so an id
 *   read back is the id sent.
 */
export const MAX_ID = 2 ** 31 - 1;
export const MAX_BIG_ID = Number.MAX_SAFE_INTEGER;

/** Whether `n` may name a row of a 32-bit table: an integer from 1 to MAX_ID. */
export function isRowId(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= MAX_ID;
}

/** Whether `n` may name a row of a table that grows with activity: from 1 to MAX_BIG_ID. */
export function isBigRowId(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 1;
}
