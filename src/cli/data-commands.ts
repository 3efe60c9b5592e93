/**
 * The data commands: `users create`, `tokens create`, `seed`, `import`, `export`. Each declares its
 * options (usage.ts), parses them, calls a service and prints; exit code 2 for bad arguments, 1
 * when the work failed.
 */
import { createWriteStream, existsSync, rmSync, rmdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { finished } from 'node:stream/promises';
import { type ConfigInput, loadConfig } from '../config.js';
import { NotFoundError } from '../domain/errors.js';
import { ExportService } from '../data/export.js';
import { ImportService } from '../data/import.js';
import { SeedService } from '../data/seed.js';
import { estimateRecords } from '../data/synthetic-data.js';
import type { TransferSummary } from '../data/transfer.js';
import { systemClock } from '../services/clock.js';
import {
  ProvisioningService,
  validateNewToken,
  validateNewUser,
} from '../services/accounts/provisioning.js';
import { parseDatabaseUrl } from '../store/database.js';
import { type Store, openStore } from '../store/store.js';
import { ProgressReporter, progressMode, summaryLine } from './progress.js';
import {
  type CommandSpec,
  type OptionSpec,
  UsageError,
  LOG_LEVEL_OPTION,
  type Values,
  parseCommand,
} from './usage.js';

export { UsageError };

const DATABASE: Record<string, OptionSpec> = {
  'database-url': {
    type: 'string',
    value: 'URL',
    help: 'sqlite:<path> (default sqlite:./data/pulsegate.db) or postgres://…\n(env DATABASE_URL)',
  },
  ...LOG_LEVEL_OPTION,
};

const PROGRESS: Record<string, OptionSpec> = {
  progress: {
    type: 'boolean',
    help: 'Print progress lines even when stderr is not a terminal',
  },
};

export const USERS_CREATE: CommandSpec = {
  name: 'users create',
  synopsis:
    'users create --username U --email E --name N (--password P | --password-stdin) [--admin]',
  summary: 'Create a user.',
  options: {
    username: { type: 'string', value: 'U', help: 'Login name (required)' },
    email: { type: 'string', value: 'E', help: 'E-mail address (required)' },
    name: { type: 'string', value: 'N', help: 'Display name (required)' },
    password: {
      type: 'string',
      value: 'P',
      help: 'Password (visible to ps; prefer --password-stdin)',
    },
    'password-stdin': { type: 'boolean', help: 'Read the password from standard input' },
    admin: { type: 'boolean', help: 'Make the user an administrator' },
    ...DATABASE,
  },
};

export const TOKENS_CREATE: CommandSpec = {
  name: 'tokens create',
  synopsis: 'tokens create --user U --name N --scopes api,read_user [--expires-at YYYY-MM-DD]',
  summary: 'Create a personal access token; it is printed once, on standard output.',
  options: {
    user: { type: 'string', value: 'U', help: 'Username of the owner (required)' },
    name: { type: 'string', value: 'N', help: 'Name of the token (required)' },
    scopes: {
      type: 'string',
      value: 'LIST',
      help: 'Comma-separated scopes: api, read_api, read_user (required)',
    },
    'expires-at': { type: 'string', value: 'YYYY-MM-DD', help: 'Expiry date (default: never)' },
    ...DATABASE,
  },
};

export const SEED: CommandSpec = {
  name: 'seed',
  synopsis: 'seed [--events N [--users U] [--projects P] [--seed S]]',
  summary: 'Load the demo data set into an empty database, or generate synthetic data.',
  options: {
    events: { type: 'string', value: 'N', help: 'Generate N synthetic events (benchmarks)' },
    users: { type: 'string', value: 'U', help: 'Synthetic users (default 50)' },
    projects: { type: 'string', value: 'P', help: 'Synthetic projects (default 10)' },
    seed: { type: 'string', value: 'S', help: 'Random seed of the synthetic data (default 42)' },
    ...PROGRESS,
    ...DATABASE,
  },
};

export const IMPORT: CommandSpec = {
  name: 'import',
  synopsis: 'import <file|->',
  summary: 'Import newline-delimited JSON into an empty database, in one transaction.',
  about: 'A file with any bad line imports nothing: every problem is reported with its line.',
  options: { ...PROGRESS, ...DATABASE },
  positionals: 1,
};

export const EXPORT: CommandSpec = {
  name: 'export',
  synopsis: 'export [file]',
  summary: 'Export everything as newline-delimited JSON (default: to standard output).',
  about: 'An existing file is never overwritten.',
  options: { ...PROGRESS, ...DATABASE },
  positionals: 1,
};

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function count(values: Values, name: string, fallback: number, min: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`--${name} must be a whole number of at least ${min}: ${String(raw)}`);
  }
  return n;
}

async function withStore<T>(values: Values, run: (store: Store) => Promise<T>): Promise<T> {
  const url = values['database-url'];
  const level = values['log-level'];
  const input: ConfigInput = {
    databaseUrl: typeof url === 'string' ? url : undefined,
    logLevel: typeof level === 'string' ? level : undefined,
  };
  const store = await openStore(loadConfig(input).databaseUrl);
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

/**
 * Runs `work`; when it fails, a SQLite database it created is removed with its side files and
 * the directories made for it: a failed import leaves nothing behind.
 */
async function removedOnFailure<T>(values: Values, work: () => Promise<T>): Promise<T> {
  const url = values['database-url'];
  const { databaseUrl } = loadConfig({ databaseUrl: typeof url === 'string' ? url : undefined });
  const parsed = parseDatabaseUrl(databaseUrl);
  const path = parsed.dialect === 'sqlite' && parsed.target !== ':memory:' ? parsed.target : null;
  if (path === null || existsSync(path)) return work();
  let existing = dirname(path);
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    return await work();
  } catch (error) {
    for (const suffix of ['', '-wal', '-shm', '-journal'])
      rmSync(`${path}${suffix}`, { force: true });
    for (let dir = dirname(path); dir !== existing && dir !== dirname(dir); dir = dirname(dir)) {
      try {
        rmdirSync(dir);
      } catch {
        break;
      }
    }
    throw error;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function usersCreate(args: string[]): Promise<number> {
  const { values } = parseCommand(USERS_CREATE, args);
  if ((values.password === undefined) === !values['password-stdin']) {
    throw new UsageError('give exactly one of --password or --password-stdin');
  }
  const input = {
    username: required(values, 'username'),
    email: required(values, 'email'),
    name: required(values, 'name'),
    password: values['password-stdin'] ? await readStdin() : required(values, 'password'),
    admin: values.admin === true,
  };
  // Refused arguments leave no database file behind: check them before opening it.
  validateNewUser(input);
  const user = await withStore(values, (store) =>
    new ProvisioningService(store, systemClock).createUser(input),
  );
  process.stdout.write(
    `created user ${user.username} (id ${user.id}${user.admin ? ', admin' : ''})\n`,
  );
  return 0;
}

async function tokensCreate(args: string[]): Promise<number> {
  const { values } = parseCommand(TOKENS_CREATE, args);
  const input = {
    username: required(values, 'user'),
    name: required(values, 'name'),
    scopes: required(values, 'scopes'),
    expiresAt: values['expires-at'] as string | undefined,
  };
  validateNewToken(input, systemClock);
  const issued = await withStore(values, async (store) => {
    try {
      return await new ProvisioningService(store, systemClock).createToken(input);
    } catch (error) {
      if (error instanceof NotFoundError) throw new UsageError(`no user named ${input.username}`);
      throw error;
    }
  });
  const expiry = issued.row.expires_at ? `expires ${issued.row.expires_at}` : 'never expires';
  process.stderr.write(
    `personal access token "${issued.row.name}" for ${issued.user.username}` +
      ` (scopes ${issued.row.scopes.replace(/ /g, ',')}, ${expiry}); it is shown only once:\n`,
  );
  process.stdout.write(`${issued.token}\n`);
  return 0;
}

async function seed(args: string[]): Promise<number> {
  const { values } = parseCommand(SEED, args);
  const synthetic = ['events', 'users', 'projects', 'seed'].some((k) => values[k] !== undefined);
  // Checked before the database is opened, so a refused command creates no file.
  const options = synthetic
    ? {
        events: count(values, 'events', 10_000, 0),
        users: count(values, 'users', 50, 1),
        projects: count(values, 'projects', 10, 1),
        seed: count(values, 'seed', 42, 0),
      }
    : null;
  const progress = new ProgressReporter('seed', progressMode(values.progress === true));
  const summary = await withStore(values, async (store) => {
    const service = new SeedService(store, systemClock);
    if (!options) {
      const url = values['database-url'];
      const { externalUrl } = loadConfig({
        databaseUrl: typeof url === 'string' ? url : undefined,
      });
      return service.seedDemo({ onProgress: progress.update }, externalUrl);
    }
    const totalRecords = estimateRecords(options);
    return service.seedSynthetic(options, {
      onProgress: (p) => progress.update({ ...p, totalRecords }),
    });
  });
  progress.finish();
  process.stdout.write(`${summaryLine(synthetic ? 'seeded' : 'loaded demo data:', summary)}\n`);
  return 0;
}

async function importCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(IMPORT, args);
  const file = positionals[0];
  if (!file) throw new UsageError('import needs a file (or - for standard input)');
  if (file !== '-' && !existsSync(file)) throw new UsageError(`no such file: ${file}`);
  const progress = new ProgressReporter('import', progressMode(values.progress === true));
  const summary = await removedOnFailure(values, () =>
    withStore(values, (store) =>
      new ImportService(store, systemClock).importFile(file, { onProgress: progress.update }),
    ),
  );
  progress.finish();
  process.stdout.write(`${summaryLine('imported', summary)}\n`);
  return 0;
}

async function exportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(EXPORT, args);
  const file = positionals[0];
  const toStdout = file === undefined || file === '-';
  // Never overwrite: an export is often the only copy being made.
  if (!toStdout && existsSync(file)) throw new UsageError(`${file} already exists`);
  const out = toStdout ? process.stdout : createWriteStream(file, { flags: 'wx' });
  const progress = new ProgressReporter('export', progressMode(values.progress === true));
  // A failed output stops the export. `pulsegate export | head` is the common case: the reader
  // went away (EPIPE) because it has what it wanted, so the export stops quietly.
  const outputFailed = new AbortController();
  out.on('error', (error) => outputFailed.abort(error));
  const readerGone = () => (outputFailed.signal.reason as { code?: unknown })?.code === 'EPIPE';
  let summary: TransferSummary;
  try {
    summary = await withStore(values, (store) =>
      new ExportService(store).exportTo(out, {
        onProgress: progress.update,
        signal: outputFailed.signal,
      }),
    );
  } catch (error) {
    if (readerGone()) return 0;
    throw outputFailed.signal.aborted ? outputFailed.signal.reason : error;
  }
  if (readerGone()) return 0;
  outputFailed.signal.throwIfAborted();
  if (!toStdout) {
    out.end();
    await finished(out);
  }
  progress.finish();
  // With the data on stdout, the summary goes to stderr.
  (toStdout ? process.stderr : process.stdout).write(`${summaryLine('exported', summary)}\n`);
  return 0;
}

/** The data commands with what runs each. */
export const DATA_COMMANDS: { spec: CommandSpec; run(args: string[]): Promise<number> }[] = [
  { spec: USERS_CREATE, run: usersCreate },
  { spec: TOKENS_CREATE, run: tokensCreate },
  { spec: SEED, run: seed },
  { spec: IMPORT, run: importCommand },
  { spec: EXPORT, run: exportCommand },
];
