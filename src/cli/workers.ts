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
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';

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
          if (!ready) reject(new Error(`a worker exited with ${code ?? signal} before listening`));
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
