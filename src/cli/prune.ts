/**
 * `pulsegate prune [--dry-run]`: what event retention (`--retain-events`) removes, and with
 * `--dry-run` only what it would: rows per table and the oldest event kept. The same batches as
 * the server's background loop, so it can run beside a serving server.
 */
import { loadConfig } from '../config.js';
import { systemClock } from '../services/clock.js';
import { RetentionService } from '../services/retention.js';
import { openStore } from '../store/store.js';
import { type CommandSpec, LOG_LEVEL_OPTION, parseCommand } from './usage.js';

export const PRUNE: CommandSpec = {
  name: 'prune',
  synopsis: 'prune [--dry-run] [--retain-events AGE]',
  summary: 'Remove the events older than the retention window (--dry-run: only say what).',
  about:
    'Prints the rows per table older than the window (events, their push payloads, finished\n' +
    'webhook deliveries past their own seven days) and the oldest event kept, then removes them\n' +
    'in batches of PULSEGATE_PRUNE_BATCH_SIZE (default 10000). Safe beside a running server.',
  options: {
    'dry-run': { type: 'boolean', help: 'Say what would be removed; remove nothing' },
    'retain-events': {
      type: 'string',
      value: 'AGE',
      help: 'Keep events this young: 90d, 18m, 3y (default 3y; 0 keeps every\nevent; env PULSEGATE_RETAIN_EVENTS)',
    },
    'database-url': {
      type: 'string',
      value: 'URL',
      help: 'sqlite:<path> (default sqlite:./data/pulsegate.db) or postgres://…\n(env DATABASE_URL)',
    },
    ...LOG_LEVEL_OPTION,
  },
};

const TABLES = [
  ['events', 'events'],
  ['push_event_payloads', 'pushPayloads'],
  ['webhook_deliveries', 'webhookDeliveries'],
] as const;

export async function runPruneCommand(args: string[]): Promise<number> {
  const { values } = parseCommand(PRUNE, args);
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const config = loadConfig({
    databaseUrl: str(values['database-url']),
    logLevel: str(values['log-level']),
    retainEvents: str(values['retain-events']),
  });
  const dryRun = values['dry-run'] === true;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const store = await openStore(config.databaseUrl);
  try {
    const retention = new RetentionService(
      store,
      systemClock,
      config.retainEvents,
      config.pruneBatchSize,
    );
    const plan = await retention.plan();
    if (plan === null) {
      out('retention 0: every event is kept; nothing to prune');
      return 0;
    }
    out(`retention ${plan.retention}: events created before ${iso(plan.cutoff)}`);
    const width = Math.max(...TABLES.map(([, key]) => String(plan[key]).length));
    for (const [table, key] of TABLES) {
      out(`  ${table.padEnd(20)} ${String(plan[key]).padStart(width)}`);
    }
    out(
      plan.oldestKept === null
        ? 'oldest event kept: none (no event is younger)'
        : `oldest event kept: ${iso(plan.oldestKept)}`,
    );
    if (dryRun) {
      out('dry run: nothing was removed');
      return 0;
    }
    const run = await retention.pruneAll();
    out(
      `removed ${run.events} events, ${run.pushPayloads} push payloads, ` +
        `${run.webhookDeliveries} webhook deliveries in ${run.batches} batch${run.batches === 1 ? '' : 'es'}`,
    );
  } finally {
    await store.close();
  }
  return 0;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
