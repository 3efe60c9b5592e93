/**
 * PostgreSQL `text` cannot hold a NUL character: comparing against one is an error there
 * ("invalid byte sequence"), not a miss. No stored key contains one, so such a lookup key matches
 * no row in either dialect and is answered without asking the database.
 */
export function matchesNoRow(key: string): boolean {
  return key.includes('\0');
}
