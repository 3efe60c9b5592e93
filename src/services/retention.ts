/**
 * Event retention (`--retain-events`): events older than the window go, a bounded batch per
 * transaction, with their push payloads and their finished webhook deliveries past the
 * deliveries' own retention. The background loop drains a backlog batch after batch with a pause
 * between them, so writers and readers never wait behind one huge delete; `pulsegate prune`
 * says what would go and removes it.
 */
import { type Retention, formatRetention, retentionCutoff } from '../domain/retention.js';
import type { PrunePlan, Pruned } from '../store/events.js';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { DELIVERY_RETENTION_MS } from './webhooks/worker.js';

/** Where a run is recorded (the server's metrics; nothing for the CLI). */
export interface PruneRecorder {
  pruned(removed: Pruned): void;
  ran(seconds: number): void;
}

export const noPruneRecorder: PruneRecorder = { pruned: () => {}, ran: () => {} };

export interface RetentionPlan extends PrunePlan {
  /** Events created before this instant are removed. */
  cutoff: number;
  retention: string;
}

/** A run's totals, and whether it stopped before the backlog was drained. */
export interface PruneRun extends Pruned {
  batches: number;
  stopped: boolean;
}

export class RetentionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly retention: Retention,
    private readonly batchSize: number,
    private readonly recorder: PruneRecorder = noPruneRecorder,
  ) {}

  /** Events created before this are pruned; null when every event is kept. */
  cutoff(): number | null {
    return retentionCutoff(this.retention, this.clock.now());
  }

  /** What a prune now would remove; null when every event is kept. */
  async plan(): Promise<RetentionPlan | null> {
    const cutoff = this.cutoff();
    if (cutoff === null) return null;
    const plan = await this.store.events.prunePlan(cutoff, this.options());
    return { ...plan, cutoff, retention: formatRetention(this.retention) };
  }

  /** One batch (at most the batch size of events); null when every event is kept. */
  async pruneBatch(): Promise<Pruned | null> {
    const cutoff = this.cutoff();
    if (cutoff === null) return null;
    const removed = await this.store.events.pruneBefore(cutoff, this.batchSize, this.options());
    this.recorder.pruned(removed);
    return removed;
  }

  /**
   * Whole partitions older than the window first (PostgreSQL: each one short transaction, no
   * row deleted one by one; nothing on SQLite), then batches until nothing older is left, or
   * `stop()` says so (checked between batches: a run stops after the batch in flight). `pause`
   * runs between batches.
   */
  async pruneAll(
    stop: () => boolean = () => false,
    pause: () => Promise<void> = async () => {},
  ): Promise<PruneRun> {
    const started = performance.now();
    const run: PruneRun = {
      events: 0,
      pushPayloads: 0,
      webhookDeliveries: 0,
      batches: 0,
      stopped: false,
    };
    try {
      const cutoff = this.cutoff();
      if (cutoff === null) return run;
      const dropped = await this.store.events.dropExpiredPartitions(cutoff);
      if (dropped.events > 0 || dropped.pushPayloads > 0) {
        const removed = { events: dropped.events, pushPayloads: dropped.pushPayloads };
        this.recorder.pruned({ ...removed, webhookDeliveries: 0 });
        run.events += removed.events;
        run.pushPayloads += removed.pushPayloads;
      }
      while (!stop()) {
        const removed = await this.pruneBatch();
        if (removed === null) return run;
        run.batches++;
        run.events += removed.events;
        run.pushPayloads += removed.pushPayloads;
        run.webhookDeliveries += removed.webhookDeliveries;
        if (removed.events < this.batchSize) return run;
        await pause();
      }
      run.stopped = true;
      return run;
    } finally {
      this.recorder.ran((performance.now() - started) / 1000);
    }
  }

  private options() {
    return { deliveriesFinishedBefore: this.clock.now() - DELIVERY_RETENTION_MS };
  }
}
