/**
 * What else happens when an event is written, registered once at start. `inTransaction` hooks run
 * in the write's transaction (a webhook delivery commits or rolls back with its event, so none is
 * lost); `afterCommit` hooks hear every committed event in id order (a failed write tells nobody).
 */
import type { Store } from '../../store/store.js';
import type { Action } from '../../domain/vocabulary.js';

/** An event as it was just written. */
export interface WrittenEvent {
  id: number;
  projectId: number;
  authorId: number;
  action: Action;
  targetType: string | null;
  targetId: number | null;
  /** The issue the event concerns (its target, or the issue its note is on). */
  issueId: number | null;
  createdAt: number;
}

export type InTransactionHook = (tx: Store, event: WrittenEvent) => Promise<void>;
export type AfterCommitHook = (events: readonly WrittenEvent[]) => void;

export class EventHooks {
  private readonly inTx: InTransactionHook[] = [];
  private readonly committed: AfterCommitHook[] = [];

  /** Runs inside the writing transaction; a throw rolls the write back. */
  inTransaction(hook: InTransactionHook): void {
    this.inTx.push(hook);
  }

  /** Runs after commit; a throw is the hook's problem, never the writer's (it is reported). */
  afterCommit(hook: AfterCommitHook): void {
    this.committed.push(hook);
  }

  async written(tx: Store, event: WrittenEvent): Promise<void> {
    for (const hook of this.inTx) await hook(tx, event);
  }

  announce(events: readonly WrittenEvent[], report: (error: unknown) => void): void {
    if (events.length === 0) return;
    for (const hook of this.committed) {
      try {
        hook(events);
      } catch (error) {
        report(error);
      }
    }
  }
}
