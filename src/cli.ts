/** `pulsegate <command>`: parses arguments and calls the composition root or a service. */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { DATA_USAGE, UsageError, runDataCommand } from './cli/data-commands.js';
import { prepareDemo } from './cli/demo.js';
import { HOOK_USAGE, runHookCommand } from './cli/hook.js';
import { KEYS_USAGE, runKeysCommand } from './cli/keys.js';
import {
  WorkerCountError,
  isWorker,
  metricsOfEveryWorker,
  superviseWorkers,
  workerCount,
} from './cli/workers.js';
import { ConfigError, type ConfigInput, loadConfig } from './config.js';
import { ImportError } from './data/import.js';
import { NotEmptyError } from './data/seed.js';
import { ValidationError } from './domain/errors.js';
import { systemClock } from './services/clock.js';
import { DatabaseUnavailableError } from './store/connection-errors.js';
import { openStore } from './store/store.js';

const USAGE = `Usage: pulsegate <command> [options]

Commands:
  serve [--demo]            Serve the API (with --demo, load demo data into an empty database)
        [--no-page-cache]   Turn off whole-page/result caches (env PULSEGATE_PAGE_CACHE=false)
        [--workers N|auto]  Processes answering on the port (default 1; auto: one per core,
                            1 with --demo; env PULSEGATE_WORKERS)
        [--shutdown-timeout S]  On SIGTERM/SIGINT, wait at most S seconds (default 10) for
                            requests in flight (env PULSEGATE_SHUTDOWN_TIMEOUT)
        [--webhooks-allow-local]  Let webhooks reach loopback, link-local and private
                            addresses (env PULSEGATE_WEBHOOKS_ALLOW_LOCAL=true; off by default)
  migrate                   Apply database migrations
${DATA_USAGE}${KEYS_USAGE}${HOOK_USAGE}
Common options:
  --database-url URL        sqlite:<path> (default sqlite:./data/pulsegate.db) or postgres://…
  --port N                  Port to listen on (default 3000, env PORT)
  --host HOST               Address to bind (default 127.0.0.1, env HOST)
  --external-url URL        Base URL clients use (env PULSEGATE_EXTERNAL_URL)
  --log-level LEVEL         fatal|error|warn|info|debug|trace|silent (env LOG_LEVEL)
  --graphql-engine NAME     mercurius|apollo (env PULSEGATE_GRAPHQL_ENGINE)
  --key-encryption-key KEY  Seals the ID-token signing keys and webhook tokens in the database
                            (env PULSEGATE_KEY_ENCRYPTION_KEY; prefer the environment)
`;

const COMMON = {
  'database-url': { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'external-url': { type: 'string' },
  'log-level': { type: 'string' },
  'graphql-engine': { type: 'string' },
  'rate-limit': { type: 'string' },
  'key-encryption-key': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function configInput(values: Record<string, unknown>): ConfigInput {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  return {
    databaseUrl: str('database-url'),
    port: str('port'),
    host: str('host'),
    externalUrl: str('external-url'),
    logLevel: str('log-level'),
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
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({
        args: rest,
        options: {
          ...COMMON,
          demo: { type: 'boolean' },
          'no-page-cache': { type: 'boolean' },
          'shutdown-timeout': { type: 'string' },
          'webhooks-allow-local': { type: 'boolean' },
          workers: { type: 'string' },
        },
      });
      const config = loadConfig({
        ...configInput(values),
        ...(values['no-page-cache'] ? { pageCache: false } : {}),
        shutdownTimeout: values['shutdown-timeout'],
        ...(values['webhooks-allow-local'] ? { webhooksAllowLocal: true } : {}),
      });
      const workers = isWorker() ? 1 : workerCount(values.workers, process.env, !!values.demo);
      if (workers > 1) {
        // Migrations and the demo data once, before any worker opens the database.
        const setup = await openStore(config.databaseUrl);
        let banner = '';
        try {
          if (values.demo) banner = await prepareDemo(setup, systemClock, config);
        } finally {
          await setup.close();
        }
        await superviseWorkers(workers, () => {
          if (banner) process.stdout.write(banner);
        });
        return -1;
      }
      // Plain `serve` never seeds; `--demo` (npm start) loads demo data into an empty database.
      // A worker's primary has already prepared it.
      const store = values.demo && !isWorker() ? await openStore(config.databaseUrl) : undefined;
      const banner = store ? await prepareDemo(store, systemClock, config) : '';
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
      await app.listen({ host: config.host, port: config.port });
      if (banner) process.stdout.write(banner);
      return -1;
    }
    case 'migrate': {
      const { values } = parseArgs({ args: rest, options: COMMON });
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
    case 'keys':
      return runKeysCommand(rest);
    case 'hook':
      return runHookCommand(rest);
    default: {
      const data = runDataCommand(command, rest);
      if (data) return data;
      process.stderr.write(`unknown command: ${command}\n\n${USAGE}`);
      return 2;
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ImportError) {
      process.stderr.write(`pulsegate: import failed, nothing was written:\n${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    if (error instanceof NotEmptyError || error instanceof DatabaseUnavailableError) {
      process.stderr.write(`pulsegate: ${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    if (
      error instanceof ConfigError ||
      error instanceof WorkerCountError ||
      error instanceof UsageError ||
      error instanceof ValidationError ||
      (error instanceof Error &&
        'code' in error &&
        String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS'))
    ) {
      process.stderr.write(`pulsegate: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(
      `pulsegate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
