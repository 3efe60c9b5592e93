/** Recognises a unique-constraint violation from either dialect's driver. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  // PostgreSQL unique_violation; better-sqlite3's extended result codes.
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** PostgreSQL aborted this transaction to end a deadlock (another one goes on). */
export function isDeadlock(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  return (error as { code?: unknown }).code === '40P01';
}
