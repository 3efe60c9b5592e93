/**
 * A database that cannot be reached, said the way an operator can act on: what failed, where, and
 * what to check. Only the host, port and database name are named, never the password.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseDatabaseUrl } from './database.js';

export class DatabaseUnavailableError extends Error {}

/** PostgreSQL error codes and socket errors → what to tell the operator. */
const EXPLANATIONS: Record<string, (where: string, database: string) => string> = {
  ECONNREFUSED: (where) =>
    `cannot connect to PostgreSQL at ${where}: connection refused. Is the server running there, and is --database-url (or DATABASE_URL) right?`,
  ENOTFOUND: (where) =>
    `cannot connect to PostgreSQL at ${where}: no such host. Check the host name in --database-url (or DATABASE_URL).`,
  ETIMEDOUT: (where) =>
    `cannot connect to PostgreSQL at ${where}: the connection timed out. Check the address and any firewall between.`,
  '3D000': (where, database) =>
    `PostgreSQL at ${where} has no database "${database}". Create it (createdb ${database}) or name another in --database-url (or DATABASE_URL).`,
  '28P01': (where) =>
    `PostgreSQL at ${where} refused the password. Check the user and password in --database-url (or DATABASE_URL).`,
  '28000': (where) =>
    `PostgreSQL at ${where} refused the connection for this user. Check the user in --database-url (or DATABASE_URL) and pg_hba.conf.`,
};

const ANOTHER_FILE = 'with --database-url sqlite:<path> (or DATABASE_URL)';

/** The nearest existing ancestor of `path` (itself when it exists). */
function nearestExisting(path: string): string {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Failures to create or open a file: the path, its permissions or its file system. */
const SQLITE_FILE_CODES =
  /^(EEXIST|ENOTDIR|EISDIR|EACCES|EPERM|EROFS|SQLITE_CANTOPEN|SQLITE_READONLY|SQLITE_PERM)/;

/**
 * Why the SQLite file at `path` could not be opened or created, for the operator: a file where a
 * directory should be, a directory where the file should be, a place this user cannot write, a
 * file that is not a database.
 */
function explainSqlite(error: unknown, path: string): DatabaseUnavailableError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  const say = (text: string) =>
    new DatabaseUnavailableError(`cannot open the SQLite database ${path}: ${text}`);
  if (code === 'SQLITE_NOTADB') {
    return say(
      `it is not a SQLite database. Move it away, or choose another file ${ANOTHER_FILE}.`,
    );
  }
  if (!SQLITE_FILE_CODES.test(code)) return null;
  const found = nearestExisting(dirname(path));
  if (!statSync(found).isDirectory()) {
    return say(
      `${found} is a file, not a directory. Choose a path in a directory ${ANOTHER_FILE}.`,
    );
  }
  if (existsSync(path) && statSync(path).isDirectory()) {
    return say(`it is a directory. Name a file ${ANOTHER_FILE}.`);
  }
  if (existsSync(path) && !writable(path)) {
    return say(
      `the file is not writable by this user. Make it writable, or choose another file ${ANOTHER_FILE}.`,
    );
  }
  return say(
    `${found} is not writable by this user. Make it writable, or choose another file ${ANOTHER_FILE}.`,
  );
}

/** The operator's version of a failure to open `url`, or null when it is another kind of error. */
export function explainConnectionError(
  error: unknown,
  url: string,
): DatabaseUnavailableError | null {
  if (url.startsWith('sqlite:')) {
    const { target } = parseDatabaseUrl(url);
    return target === ':memory:' ? null : explainSqlite(error, target);
  }
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // node-postgres reports its own connection timeout (database.ts) without a code.
  const timedOut = typeof message === 'string' && message.includes('due to connection timeout');
  const explain = timedOut
    ? EXPLANATIONS.ETIMEDOUT
    : typeof code === 'string'
      ? EXPLANATIONS[code]
      : undefined;
  if (!explain) return null;
  const parsed = parseDatabaseUrl(url);
  if (parsed.dialect !== 'postgres') return null;
  const target = new URL(parsed.target);
  const where = `${target.hostname || 'localhost'}:${target.port || '5432'}`;
  return new DatabaseUnavailableError(explain(where, decodeURIComponent(target.pathname.slice(1))));
}

/**
 * SQLSTATE classes and codes that mean the database cannot serve now but may shortly: connection
 * exceptions (08000, 08001, 08003, 08004, 08006; not 08P01, a protocol violation), the server
 * shutting down or starting (57P01–57P03), too many connections (53300).
 */
const UNAVAILABLE_SQLSTATES = /^(0800[0-46]|57P0[123]|53300)$/;
/** Socket failures under a connection. */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** What node-postgres and its pool say, without a code, when a connection ends or never opens. */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;

/**
 * Whether a query failed because the database is out of reach for the moment (PostgreSQL down,
 * restarting or refusing connections; SQLite's write lock held past the busy timeout) rather than
 * because of the query: the faces answer 503 with Retry-After instead of a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof DatabaseUnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_')) return true;
    if (UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_SOCKET_CODES.has(code)) return true;
  }
  return UNAVAILABLE_MESSAGES.test(error.message);
}
