/**
 * The data commands: `users create`, `tokens create`, `seed`, `import`, `export`. Each parses its
 * flags, calls a service and prints; exit code 2 for bad arguments, 1 when the work failed.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { type ParseArgsConfig, parseArgs } from 'node:util';
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
import { type Store, openStore } from '../store/store.js';
import { ProgressReporter, progressMode, summaryLine } from './progress.js';

/** A command line that cannot run as given (exit code 2). */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

const DATABASE = { 'database-url': { type: 'string' } } as const;

export const DATA_USAGE = `  users create --username U --email E --name N (--password P | --password-stdin) [--admin]
                            Create a user
  tokens create --user U --name N --scopes api,read_user [--expires-at YYYY-MM-DD]
                            Create a personal access token (printed once)
  seed                      Load the demo data set into an empty database
  seed --events N [--users U] [--projects P] [--seed S]
                            Generate synthetic data (benchmarks)
  import <file|->           Import newline-delimited JSON (one transaction)
  export [file]             Export everything as newline-delimited JSON (default: stdout)
                            (seed, import, export: --progress prints progress lines when
                            stderr is not a terminal)
`;

/**
 * `--events -5` → `--events=-5`: parseArgs takes a value that starts with a dash for an option of
 * its own and refuses it with advice about `=`; joined, the value reaches our own check and its
 * plain message.
 */
function joinDashedValues(args: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : '';
    const next = args[i + 1];
    if (options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${args[i]}=${next}`);
      i++;
    } else {
      out.push(args[i]!);
    }
  }
  return out;
}

function parse(args: string[], options: Options, positionals = 0) {
  const all = { ...DATABASE, ...options };
  const parsed = parseArgs({
    args: joinDashedValues(args, all),
    options: all,
    allowPositionals: true,
  });
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`unexpected argument: ${parsed.positionals[positionals]}`);
  }
  return { values: parsed.values as Values, positionals: parsed.positionals };
}

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
  const input: ConfigInput = { databaseUrl: typeof url === 'string' ? url : undefined };
  const store = await openStore(loadConfig(input).databaseUrl);
  try {
    return await run(store);
  } finally {
    await store.close();
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
  const { values } = parse(args, {
    username: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    admin: { type: 'boolean' },
  });
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
  const { values } = parse(args, {
    user: { type: 'string' },
    name: { type: 'string' },
    scopes: { type: 'string' },
    'expires-at': { type: 'string' },
  });
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
  const { values } = parse(args, {
    events: { type: 'string' },
    users: { type: 'string' },
    projects: { type: 'string' },
    seed: { type: 'string' },
    progress: { type: 'boolean' },
  });
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
  const { values, positionals } = parse(args, { progress: { type: 'boolean' } }, 1);
  const file = positionals[0];
  if (!file) throw new UsageError('import needs a file (or - for standard input)');
  if (file !== '-' && !existsSync(file)) throw new UsageError(`no such file: ${file}`);
  const progress = new ProgressReporter('import', progressMode(values.progress === true));
  const summary = await withStore(values, (store) =>
    new ImportService(store, systemClock).importFile(file, { onProgress: progress.update }),
  );
  progress.finish();
  process.stdout.write(`${summaryLine('imported', summary)}\n`);
  return 0;
}

async function exportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { progress: { type: 'boolean' } }, 1);
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

/** Runs a data command, or returns null when `command` is not one. */
export function runDataCommand(command: string, rest: string[]): Promise<number> | null {
  const [sub, ...args] = rest;
  switch (command) {
    case 'users':
      if (sub !== 'create') throw new UsageError('usage: pulsegate users create …');
      return usersCreate(args);
    case 'tokens':
      if (sub !== 'create') throw new UsageError('usage: pulsegate tokens create …');
      return tokensCreate(args);
    case 'seed':
      return seed(rest);
    case 'import':
      return importCommand(rest);
    case 'export':
      return exportCommand(rest);
    default:
      return null;
  }
}
