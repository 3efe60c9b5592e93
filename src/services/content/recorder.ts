/**
 * Records the events of one write, inside its transaction: the event row (and push payload), then
 * the in-transaction hooks (the webhook outbox). The events it wrote are announced by the caller
 * once the transaction has committed.
 */
import type { StoredPush } from '../../domain/push-payload.js';
import { type Action, actionCode } from '../../domain/vocabulary.js';
import type { Store } from '../../store/store.js';
import type { EventHooks, WrittenEvent } from '../activity/event-hooks.js';

export interface EventInput {
  projectId: number;
  authorId: number;
  action: Action;
  targetType: string | null;
  targetId: number | null;
  issueId?: number | null;
}

export class EventRecorder {
  /** Every event this write recorded, in order. */
  readonly written: WrittenEvent[] = [];

  constructor(
    private readonly tx: Store,
    private readonly hooks: EventHooks,
    private readonly now: number,
  ) {}

  async record(input: EventInput, push?: StoredPush): Promise<WrittenEvent> {
    const row = await this.tx.events.append(
      {
        project_id: input.projectId,
        author_id: input.authorId,
        action: actionCode(input.action),
        target_type: input.targetType,
        target_id: input.targetId,
        issue_id: input.issueId ?? null,
        created_at: this.now,
      },
      push && {
        action: push.action,
        ref_type: push.refType,
        ref: push.ref,
        commit_from: push.commitFrom,
        commit_to: push.commitTo,
        commit_count: push.commitCount,
        commit_title: push.commitTitle,
        commits: JSON.stringify(push.commits),
      },
    );
    const event: WrittenEvent = {
      id: row.id,
      projectId: row.project_id,
      authorId: row.author_id,
      action: input.action,
      targetType: row.target_type,
      targetId: row.target_id,
      issueId: row.issue_id,
      createdAt: row.created_at,
    };
    await this.hooks.written(this.tx, event);
    this.written.push(event);
    return event;
  }
}
