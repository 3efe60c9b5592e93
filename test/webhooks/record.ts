/**
 * Writes content and its event the way a write does (one transaction, the event recorder, the
 * in-transaction hooks, then the after-commit announcement), for tests that need events before
 * the REST writes exist.
 */
import type { Action } from '../../src/domain/vocabulary.js';
import type { Services } from '../../src/services/container.js';
import { EventRecorder } from '../../src/services/content/recorder.js';
import type { StoredPush } from '../../src/domain/push-payload.js';
import type { Store } from '../../src/store/store.js';

export async function write(
  store: Store,
  services: Services,
  now: number,
  work: (tx: Store) => Promise<{
    projectId: number;
    authorId: number;
    action: Action;
    targetType: string | null;
    targetId: number | null;
    issueId?: number | null;
    push?: StoredPush;
  }>,
): Promise<number> {
  const recorder = await store.transaction(async (tx) => {
    const rec = new EventRecorder(tx, services.eventHooks, now);
    const { push, ...event } = await work(tx);
    await rec.record(event, push);
    return rec;
  });
  services.eventHooks.announce(recorder.written, (error) => {
    throw error;
  });
  return recorder.written[0]!.id;
}

let iid = 1000;

export async function openIssue(
  store: Store,
  services: Services,
  now: number,
  projectId: number,
  authorId: number,
  title: string,
  confidential = false,
) {
  let issueId = 0;
  await write(store, services, now, async (tx) => {
    const row = await tx.db
      .insertInto('issues')
      .values({
        project_id: projectId,
        iid: ++iid,
        title,
        author_id: authorId,
        confidential: confidential ? 1 : 0,
        state: 'opened',
        created_at: now,
        description: `About ${title}`,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    issueId = row.id;
    return {
      projectId,
      authorId,
      action: 'created',
      targetType: 'Issue',
      targetId: row.id,
      issueId: row.id,
    };
  });
  return issueId;
}

export async function comment(
  store: Store,
  services: Services,
  now: number,
  projectId: number,
  authorId: number,
  noteable: { type: 'Issue' | 'MergeRequest'; id: number },
  body: string,
) {
  return write(store, services, now, async (tx) => {
    const row = await tx.db
      .insertInto('notes')
      .values({
        project_id: projectId,
        author_id: authorId,
        body,
        noteable_type: noteable.type,
        noteable_id: noteable.id,
        system: 0,
        attachment: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return {
      projectId,
      authorId,
      action: 'commented',
      targetType: 'Note',
      targetId: row.id,
      issueId: noteable.type === 'Issue' ? noteable.id : null,
    };
  });
}

export async function mergeRequestMerged(
  store: Store,
  services: Services,
  now: number,
  projectId: number,
  authorId: number,
  title: string,
) {
  return write(store, services, now, async (tx) => {
    const row = await tx.db
      .insertInto('merge_requests')
      .values({
        project_id: projectId,
        iid: ++iid,
        title,
        author_id: authorId,
        state: 'merged',
        created_at: now,
        updated_at: now,
        source_branch: 'feature',
        target_branch: 'main',
        merged_at: now,
        merged_by_id: authorId,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { projectId, authorId, action: 'merged', targetType: 'MergeRequest', targetId: row.id };
  });
}

export async function push(
  store: Store,
  services: Services,
  now: number,
  projectId: number,
  authorId: number,
) {
  return write(store, services, now, async () => ({
    projectId,
    authorId,
    action: 'pushed',
    targetType: null,
    targetId: null,
    push: {
      action: 'pushed',
      refType: 'branch',
      ref: 'main',
      commitFrom: 'a'.repeat(40),
      commitTo: 'b'.repeat(40),
      commitCount: 1,
      commitTitle: 'Fix the thing',
      commits: [
        {
          id: 'b'.repeat(40),
          message: 'Fix the thing\n\nLonger text.',
          timestamp: '2026-01-15T12:00:00+00:00',
          url: 'http://example.test/commit/b',
          author: { name: 'Alice', email: 'alice@example.com' },
        },
      ],
    },
  }));
}
