/**
 * Fast bulk inserts for tests that need many events (the 10,000 count cap, deep pages): multi-row
 * INSERTs in one transaction, ids assigned by the database and read back in id order.
 */
import { actionCode, type Action } from '../../src/domain/vocabulary.js';
import type { Transaction } from 'kysely';
import type { Store } from '../../src/store/store.js';
import type { Database } from '../../src/store/schema.js';

export interface BulkEvent {
  projectId: number;
  authorId: number;
  action: Action;
  targetType?: string | null;
  targetId?: number | null;
  issueId?: number | null;
  createdAt: number;
}

const BATCH = 500;

/**
 * Inserts the events in order and returns their ids, in the same order. `alongside` writes rows
 * that belong to them (push payloads) in the same transaction, so a live listener woken by the
 * commit never sees the events without them.
 */
export async function insertEvents(
  store: Store,
  events: readonly BulkEvent[],
  alongside?: (trx: Transaction<Database>, ids: readonly number[]) => Promise<void>,
): Promise<number[]> {
  const ids: number[] = [];
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < events.length; i += BATCH) {
      const rows = events.slice(i, i + BATCH).map((e) => ({
        project_id: e.projectId,
        author_id: e.authorId,
        action: actionCode(e.action),
        target_type: e.targetType ?? null,
        target_id: e.targetId ?? null,
        issue_id: e.issueId ?? null,
        created_at: e.createdAt,
      }));
      const inserted = await trx.insertInto('events').values(rows).returning('id').execute();
      // Both dialects return the new ids in insertion order for a single multi-row INSERT.
      ids.push(...inserted.map((r) => r.id).sort((a, b) => a - b));
    }
    if (alongside) await alongside(trx, ids);
  });
  return ids;
}
