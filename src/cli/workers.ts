/**
 * `pulsegate serve --workers N`: N processes answer on one port (node:cluster: the primary accepts
 * connections and hands them to workers in turn). Nothing a worker caches needs the others: listing
 * caches follow the database's event head and epochs, row and result caches SQLite's data version,
 * rate limits and throttles live in the database (or its sidecar file), so any worker may answer
 * any request.
 *
 * The primary applies migrations (and the demo data) before forking, so workers never race them,
 * forwards SIGTERM/SIGINT to the workers, replaces a worker that dies while serving, and exits with
 * the worst exit code once they have all stopped.
 *
 * Metrics are the exception to "any worker answers alone": each process counts what it served, so
 * a scrape that reached one worker would see part of the traffic, and a different part on the next
 * scrape (counters that seem to go backwards). The worker a scrape reaches asks the primary, which
 * gathers every worker's registry with prom-client's AggregatorRegistry (counters and histograms
 * summed; each metric may name another aggregation) and answers with the whole server's text.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { StartupError } from './startup-errors.js';

/** A worker that dies this soon after starting is failing to start, not crashing under load. */
const EARLY_DEATH_MS = 5_000;
const MAX_EARLY_DEATHS = 3;

/**
 * `--workers` / PULSEGATE_WORKERS: a count, or `auto` for one per core (one for the demo). The
 * default stays one process, as process managers and the shutdown contract expect of `serve`.
 */
export function workerCount(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  demo: boolean,
): number {
  const raw = flag ?? env.PULSEGATE_WORKERS;
  if (raw === undefined || raw === '') return 1;
  if (raw === 'auto') return demo ? 1 : availableParallelism();
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 256) {
    throw new WorkerCountError(`--workers must be auto or an integer from 1 to 256, got ${raw}`);
  }
  return Number(raw);
}

export class WorkerCountError extends Error {}

/** A worker's request for the whole server's metrics, and the primary's answer to it. */
interface MetricsRequest {
  pulsegateMetrics: number;
}
interface MetricsAnswer {
  pulsegateMetricsOf: number;
  body?: string;
  error?: string;
}

/** Longer than prom-client's own wait for the workers (5 s), so its timeout is the one reported. */
const METRICS_WAIT_MS = 6_000;

/**
 * In a worker: makes `registry` the one this process contributes to the primary's aggregation, and
 * returns how a scrape gets every worker's metrics as one text. Call once, before listening.
 */
export function metricsOfEveryWorker(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries(registry);
  // Constructing one is what makes a worker answer the primary's requests for its metrics.
  new AggregatorRegistry();
  let next = 0;
  const waiting = new Map<
    number,
    { resolve(body: string): void; reject(error: Error): void; timer: NodeJS.Timeout }
  >();
  process.on('message', (message: Partial<MetricsAnswer>) => {
    const id = message?.pulsegateMetricsOf;
    if (id === undefined) return;
    const request = waiting.get(id);
    if (!request) return;
    waiting.delete(id);
    clearTimeout(request.timer);
    if (message.body !== undefined) request.resolve(message.body);
    else request.reject(new Error(message.error ?? 'no metrics from the primary'));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the primary did not answer with the workers’ metrics'));
      }, METRICS_WAIT_MS);
      timer.unref();
      waiting.set(id, { resolve, reject, timer });
      const request: MetricsRequest = { pulsegateMetrics: id };
      process.send!(request);
    });
}

/** In the primary: answers each worker's request for the whole server's metrics. */
function answerMetricsRequests(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: Partial<MetricsRequest>) => {
    const id = message?.pulsegateMetrics;
    if (typeof id !== 'number') return;
    const answer = (reply: Omit<MetricsAnswer, 'pulsegateMetricsOf'>) => {
      // The asking worker may have died meanwhile: its scrape died with it.
      if (worker.isConnected()) worker.send({ pulsegateMetricsOf: id, ...reply });
    };
    aggregator.clusterMetrics().then(
      (body) => answer({ body }),
      (error: Error) => answer({ error: error.message }),
    );
  });
}

/** Whether this process is a worker the primary forked. */
export function isWorker(): boolean {
  return cluster.isWorker;
}

/**
 * Forks `count` workers running this same command line and supervises them. Resolves once every
 * worker listens (`onListening` runs then); the process exits when they have all stopped.
 */
export function superviseWorkers(count: number, onListening: () => void): Promise<void> {
  let stopping = false;
  let worst = 0;
  let earlyDeaths = 0;
  const started = new Map<Worker, number>();
  const listening = new Set<Worker>();

  return new Promise<void>((resolve, reject) => {
    let ready = false;
    const fork = () => started.set(cluster.fork(), Date.now());
    const stop = (signal: NodeJS.Signals) => {
      const again = stopping;
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) {
        // A worker given the same signal twice cuts its requests off: forward the second only
        // when the operator sends a second one.
        if (worker) worker.send({ pulsegateShutdown: signal, force: again });
      }
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    answerMetricsRequests();

    cluster.on('listening', (worker) => {
      listening.add(worker);
      // Stopped before this worker could hear it: tell it now.
      if (stopping) worker.send({ pulsegateShutdown: 'SIGTERM', force: false });
      if (!ready && listening.size >= count) {
        ready = true;
        onListening();
        resolve();
      }
    });
    cluster.on('exit', (worker, code, signal) => {
      const failed = code !== 0 || signal !== null;
      if (failed) worst = Math.max(worst, code ?? 1, 1);
      const early = Date.now() - (started.get(worker) ?? 0) < EARLY_DEATH_MS;
      started.delete(worker);
      listening.delete(worker);
      if (!stopping && failed) {
        if (!ready || (early && ++earlyDeaths >= MAX_EARLY_DEATHS)) {
          stop('SIGTERM');
          if (!ready) {
            // The worker has said why on stderr (a taken port, an unreachable database).
            reject(new StartupError(`a worker exited with ${code ?? signal} before listening`));
          }
        } else {
          process.stderr.write(
            `pulsegate: worker ${worker.process.pid} exited (${code ?? signal}); starting another\n`,
          );
          fork();
          return;
        }
      }
      if (Object.keys(cluster.workers ?? {}).length === 0)
        process.exit(stopping ? worst : worst || 1);
    });
    for (let i = 0; i < count; i++) fork();
  });
}
