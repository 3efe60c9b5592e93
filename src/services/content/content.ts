/**
 * LOCAL WRAPPER (branch git-push only; the lead's ContentService replaces this file): one write in
 * one transaction with its events, announced after commit, with the lead's `write` signature.
 */
import type { Store } from '../../store/store.js';
import type { EventHooks } from '../activity/event-hooks.js';
import type { Clock } from '../clock.js';
import type { Actor } from './context.js';
import { ContentOps } from './ops.js';
import { EventRecorder } from './recorder.js';

export type { Actor } from './context.js';

export class ContentService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly hooks: EventHooks,
    private readonly report: (error: unknown) => void,
  ) {}

  async write<T>(actor: Actor, work: (ops: ContentOps) => Promise<T>): Promise<T> {
    let recorder: EventRecorder | undefined;
    const result = await this.store.transaction(async (tx) => {
      const now = this.clock.now();
      recorder = new EventRecorder(tx, this.hooks, now);
      return work(new ContentOps({ store: tx, now, actor, recorder }));
    });
    this.hooks.announce(recorder!.written, this.report);
    return result;
  }
}
