/** `pulsegate <command>`: parses arguments and calls the composition root or a service. */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { DATA_COMMANDS } from './cli/data-commands.js';
import { demoBanner, loadDemoData } from './cli/demo.js';
import { HOOK_USAGE, runHookCommand } from './cli/hook.js';
import { KEYS, runKeysCommand } from './cli/keys.js';
import { PRUNE, runPruneCommand } from './cli/prune.js';
import { StartupError, explainListenError } from './cli/startup-errors.js';
import {
  type CommandSpec,
  type OptionSpec,
  UsageError,
  type Values,
  asksForStacks,
  parseCommand,
  usageOf,
  wantsHelp,
} from './cli/usage.js';
import {
  WorkerCountError,
  isWorker,
  metricsOfEveryWorker,
  superviseWorkers,
  workerCount,
} from './cli/workers.js';
import {
  type Config,
  ConfigError,
  type ConfigInput,
  LOG_FORMATS,
  LOG_LEVELS,
  loadConfig,
} from './config.js';
import { ImportError } from './data/import.js';
import { NotEmptyError } from './data/seed.js';
import { ValidationError } from './domain/errors.js';
import { SealedKeyError } from './domain/key-sealing.js';
import { systemClock } from './services/clock.js';
import { DatabaseUnavailableError } from './store/connection-errors.js';
import { openStore } from './store/store.js';

const COMMON: Record<string, OptionSpec> = {
  'database-url': {
    type: 'string',
    value: 'URL',
    help: 'sqlite:<path> (default sqlite:./data/pulsegate.db) or postgres://…\n(env DATABASE_URL)',
  },
  'log-level': {
    type: 'string',
    value: 'LEVEL',
    help: `${LOG_LEVELS.join('|')} (default info, env LOG_LEVEL);\ndebug also prints the stack of an unexpected error`,
  },
};

const SERVE: CommandSpec = {
  name: 'serve',
  synopsis: 'serve [--demo] [options]',
  summary: 'Serve the API, the web pages and the feeds.',
  about:
    'Plain serve never loads data; with --demo (what npm start runs) an empty database gets the\n' +
    'demo data, and once the server listens a fresh token for the demo user is printed.',
  options: {
    demo: {
      type: 'boolean',
      help: 'Load the demo data into an empty database; print a demo token',
    },
    port: { type: 'string', value: 'N', help: 'Port to listen on (default 3000, env PORT)' },
    host: { type: 'string', value: 'HOST', help: 'Address to bind (default 127.0.0.1, env HOST)' },
    'external-url': {
      type: 'string',
      value: 'URL',
      help: 'Base URL clients use (default http://HOST:PORT,\nenv PULSEGATE_EXTERNAL_URL)',
    },
    ...COMMON,
    'log-format': {
      type: 'string',
      value: 'FORMAT',
      help: `${LOG_FORMATS.join('|')}: one line per request, for people (default when\nstdout is a terminal) or JSON (otherwise); env PULSEGATE_LOG_FORMAT`,
    },
    'graphql-engine': {
      type: 'string',
      value: 'NAME',
      help: 'mercurius|apollo (default mercurius, env PULSEGATE_GRAPHQL_ENGINE)',
    },
    'rate-limit': {
      type: 'string',
      value: 'N',
      help: 'API requests per minute per client (default 600, 0: no limit;\nenv PULSEGATE_RATE_LIMIT)',
    },
    'key-encryption-key': {
      type: 'string',
      value: 'KEY',
      help: 'Seals the ID-token signing keys and webhook tokens in the database\n(env PULSEGATE_KEY_ENCRYPTION_KEY; prefer the environment)',
    },
    'no-page-cache': {
      type: 'boolean',
      help: 'Turn off whole-page/result caches (env PULSEGATE_PAGE_CACHE=false)',
    },
    workers: {
      type: 'string',
      value: 'N|auto',
      help: 'Processes answering on the port (default 1; auto: one per core,\n1 with --demo; env PULSEGATE_WORKERS)',
    },
    'shutdown-timeout': {
      type: 'string',
      value: 'S',
      help: 'On SIGTERM/SIGINT, wait at most S seconds (default 10) for requests\nin flight (env PULSEGATE_SHUTDOWN_TIMEOUT)',
    },
    'webhooks-allow-local': {
      type: 'boolean',
      help: 'Let webhooks reach loopback, link-local and private addresses\n(env PULSEGATE_WEBHOOKS_ALLOW_LOCAL=true; off by default)',
    },
    gravatar: {
      type: 'boolean',
      help: 'Pages show avatars from Gravatar; off: identicons drawn here\n(env PULSEGATE_GRAVATAR=true; off by default)',
    },
    'ssh-host': {
      type: 'string',
      value: 'HOST',
      help: "The host in SSH clone URLs (default: the external URL's host;\nenv PULSEGATE_SSH_HOST)",
    },
    'ssh-port': {
      type: 'string',
      value: 'N',
      help: 'The port in SSH clone URLs (default 22; env PULSEGATE_SSH_PORT)',
    },
    'retain-events': {
      type: 'string',
      value: 'AGE',
      help: 'Prune events older than AGE in the background: 90d, 18m, 3y\n(default 3y as GitLab; 0 keeps every event; env PULSEGATE_RETAIN_EVENTS)',
    },
  },
};

const MIGRATE: CommandSpec = {
  name: 'migrate',
  synopsis: 'migrate [--database-url URL]',
  summary: 'Apply the database migrations (serve and the data commands also do, on start).',
  options: COMMON,
};

/** `hook` parses its own arguments (cli/hook.ts); its usage is its own text. */
const HOOK_HELP = `Usage:\n${HOOK_USAGE}`;

interface Command {
  spec: CommandSpec;
  run(args: string[]): Promise<number>;
}

const COMMANDS: Command[] = [
  { spec: SERVE, run: serve },
  { spec: MIGRATE, run: migrate },
  ...DATA_COMMANDS,
  { spec: KEYS, run: runKeysCommand },
  { spec: PRUNE, run: runPruneCommand },
];

const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

const OVERVIEW = `Usage: pulsegate <command> [options]

Commands:
${COMMANDS.map(({ spec }) => `  ${spec.name.padEnd(16)}${spec.summary}\n`).join('')}${'  hook'.padEnd(18)}Report pushes to a bare git repository as events (hook --help)

Run pulsegate help <command> (or pulsegate <command> --help) for its options.
  -h, --help      Print this help
  -v, --version   Print the version (${VERSION})
`;

/**
 * The command `argv` names and the arguments after its name: `tokens create …` → tokens create.
 * A group without a known subcommand (`tokens`, `tokens delete`) is the one command of that group
 * when asked for help, a usage error otherwise.
 */
function findCommand(argv: string[]): { command: Command; args: string[] } | null {
  const [first, second, ...rest] = argv;
  const two = COMMANDS.find(({ spec }) => spec.name === `${first} ${second}`);
  if (two) return { command: two, args: rest };
  const one = COMMANDS.find(({ spec }) => spec.name === first);
  if (one) return { command: one, args: argv.slice(1) };
  const group = COMMANDS.find(({ spec }) => spec.name.startsWith(`${first} `));
  if (!group) return null;
  const wanted = second !== undefined && !second.startsWith('-') ? ` ${second}` : '';
  if (wantsHelp(argv) && !wanted) return { command: group, args: argv.slice(1) };
  throw new UsageError(
    wanted
      ? `unknown command: ${first}${wanted}`
      : `${first} needs a subcommand: ${group.spec.name}`,
    usageOf(group.spec),
  );
}

function configInput(values: Values): ConfigInput {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  return {
    databaseUrl: str('database-url'),
    port: str('port'),
    host: str('host'),
    externalUrl: str('external-url'),
    logLevel: str('log-level'),
    logFormat: str('log-format'),
    graphqlEngine: str('graphql-engine'),
    rateLimit: str('rate-limit'),
    keyEncryptionKey: str('key-encryption-key'),
  };
}

/**
 * Graceful shutdown on SIGTERM or SIGINT: stop accepting connections (new ones are refused, and a
 * request arriving on a kept-alive connection gets 503), let requests in flight finish, close the
 * database and exit 0. Requests still running after `timeoutSeconds` are cut off and the exit code
 * is 1; a second signal cuts them off at once.
 */
function stopOnSignals(
  app: FastifyInstance,
  timeoutSeconds: number,
  closeStore: () => Promise<void> | undefined,
): () => boolean {
  let stopping = false;
  let forced = false;
  const force = () => {
    forced = true;
    app.log.warn('shutdown: cutting off the requests still in flight');
    app.server.closeAllConnections();
    // Whatever still hangs (a database that does not answer) does not keep the process alive.
    setTimeout(() => process.exit(1), 2_000).unref();
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return force();
    stopping = true;
    app.log.info({ signal, timeoutSeconds }, 'shutdown: finishing the requests in flight');
    const timer = setTimeout(force, timeoutSeconds * 1000);
    timer.unref();
    // A kept-alive connection whose request has been answered would hold the close open until its
    // keep-alive timeout: close each one as soon as it falls idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    sweep.unref();
    void (async () => {
      try {
        await app.close();
        await closeStore();
      } catch (error) {
        app.log.error({ err: error }, 'shutdown: closing failed');
        forced = true;
      }
      clearTimeout(timer);
      clearInterval(sweep);
      process.exit(forced ? 1 : 0);
    })();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // A worker of `serve --workers N` also hears its primary: the operator's signal, forwarded once
  // (a terminal's Ctrl-C may reach the worker directly too; that must not count as a second one).
  process.on('message', (message: { pulsegateShutdown?: NodeJS.Signals; force?: boolean }) => {
    if (!message?.pulsegateShutdown) return;
    if (!stopping) stop(message.pulsegateShutdown);
    else if (message.force && !forced) force();
  });
  return () => stopping;
}

export async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (first === undefined) {
    process.stderr.write(OVERVIEW);
    return 2;
  }
  if (first === '--help' || first === '-h') {
    process.stdout.write(OVERVIEW);
    return 0;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    process.stdout.write(`pulsegate ${VERSION}\n`);
    return 0;
  }
  if (first === 'help') {
    if (argv.length === 1) {
      process.stdout.write(OVERVIEW);
      return 0;
    }
    if (argv[1] === 'hook') {
      process.stdout.write(HOOK_HELP);
      return 0;
    }
    const found = findCommand([...argv.slice(1), '--help']);
    if (!found) throw new UsageError(`unknown command: ${argv[1]}`, OVERVIEW);
    process.stdout.write(usageOf(found.command.spec));
    return 0;
  }
  if (first === 'hook') {
    if (wantsHelp(argv.slice(1))) {
      process.stdout.write(HOOK_HELP);
      return 0;
    }
    try {
      return await runHookCommand(argv.slice(1));
    } catch (error) {
      // hook parses its own options: its refusal of one, said as the other commands say it.
      const name = /'(-[^']+)'/.exec((error as Error | null)?.message ?? '')?.[1];
      if ((error as { code?: unknown } | null)?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && name) {
        throw new UsageError(`unknown option ${name} for hook`, HOOK_HELP);
      }
      throw error;
    }
  }
  const found = findCommand(argv);
  if (!found) throw new UsageError(`unknown command: ${first}`, OVERVIEW);
  // Help before anything else: no database opened, no port, no token.
  if (wantsHelp(found.args)) {
    process.stdout.write(usageOf(found.command.spec));
    return 0;
  }
  debugStacks ||= asksForStacks(found.args);
  return found.command.run(found.args);
}

async function serve(args: string[]): Promise<number> {
  const { values } = parseCommand(SERVE, args);
  const config = loadConfig({
    ...configInput(values),
    ...(values['no-page-cache'] ? { pageCache: false } : {}),
    shutdownTimeout: values['shutdown-timeout'] as string | undefined,
    ...(values['webhooks-allow-local'] ? { webhooksAllowLocal: true } : {}),
    ...(values.gravatar ? { gravatar: true } : {}),
    sshHost: values['ssh-host'] as string | undefined,
    sshPort: values['ssh-port'] as string | undefined,
    retainEvents: values['retain-events'] as string | undefined,
  });
  const demo = values.demo === true;
  const workers = isWorker()
    ? 1
    : workerCount(values.workers as string | undefined, process.env, demo);
  if (workers > 1) {
    // Migrations and the demo data once, before any worker opens the database.
    const setup = await openStore(config.databaseUrl);
    try {
      if (demo) await loadDemoData(setup, systemClock, config);
    } finally {
      await setup.close();
    }
    await superviseWorkers(workers, () => {
      if (demo) printDemoBanner(config).catch((error) => (process.exitCode = report(error)));
    });
    return -1;
  }
  // Plain `serve` never seeds; `--demo` (npm start) loads demo data into an empty database.
  // A worker's primary has already prepared it.
  const store = demo && !isWorker() ? await openStore(config.databaseUrl) : undefined;
  if (store) await loadDemoData(store, systemClock, config);
  // Loaded here so that data commands do not pay for compiling every face at start.
  const { buildServer } = await import('./server.js');
  const { app, services } = await buildServer({ config, ...(store ? { store } : {}) });
  // A worker's scrape answers for the whole server (cli/workers.ts).
  if (isWorker()) services.metrics.gatherWith(metricsOfEveryWorker(services.metrics.registry));
  // Signals are heard from here on: a stop during the warm-up closes the server unopened.
  const stopping = stopOnSignals(app, config.shutdownTimeout, () => store?.close());
  const { warmUp } = await import('./http/warm-up.js');
  const started = performance.now();
  const warmed = await warmUp(app, services, stopping);
  if (stopping()) return -1;
  app.log.info({ ...warmed, ms: Math.round(performance.now() - started) }, 'warmed up');
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close();
    await store?.close();
    throw explainListenError(error, config) ?? error;
  }
  // Only now: minting revokes the previous demo token, perhaps a running server's.
  if (store) process.stdout.write(await demoBanner(store, systemClock, config));
  return -1;
}

/** With workers, once they all listen: a fresh demo token, minted through a connection of its own. */
async function printDemoBanner(config: Config): Promise<void> {
  const store = await openStore(config.databaseUrl, { migrate: false });
  try {
    process.stdout.write(await demoBanner(store, systemClock, config));
  } finally {
    await store.close();
  }
}

async function migrate(args: string[]): Promise<number> {
  const { values } = parseCommand(MIGRATE, args);
  const config = loadConfig(configInput(values));
  const store = await openStore(config.databaseUrl, { migrate: false });
  try {
    const { applied } = await store.migrate();
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'up to date\n');
  } finally {
    await store.close();
  }
  return 0;
}

/** Whether an unexpected error is printed with its stack (`--log-level debug` or LOG_LEVEL=debug). */
let debugStacks = process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace';

/** Says what went wrong on stderr; returns the exit code. */
function report(error: unknown): number {
  const say = (text: string) => process.stderr.write(`pulsegate: ${text}\n`);
  if (error instanceof ImportError) {
    say(`import failed, nothing was written:\n${error.message}`);
    return 1;
  }
  // What the operator has to change: the configuration, the database, the port.
  if (
    error instanceof NotEmptyError ||
    error instanceof DatabaseUnavailableError ||
    error instanceof ConfigError ||
    error instanceof WorkerCountError ||
    error instanceof SealedKeyError ||
    error instanceof StartupError
  ) {
    say(error.message);
    return 1;
  }
  // What the command line asked for cannot be done as asked.
  if (error instanceof UsageError || error instanceof ValidationError) {
    say(error.message);
    if (error instanceof UsageError && error.usage) process.stderr.write(`\n${error.usage}`);
    return 2;
  }
  if (
    error instanceof Error &&
    String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')
  ) {
    say(error.message);
    return 2;
  }
  if (debugStacks || !(error instanceof Error)) {
    say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } else {
    say(`${error.message}\n(run with --log-level debug, or LOG_LEVEL=debug, to see where)`);
  }
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = report(error);
    // A worker's channel to its primary would keep it alive: the primary waits for its exit.
    if (isWorker()) process.disconnect?.();
  },
);
