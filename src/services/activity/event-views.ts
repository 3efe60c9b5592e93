/** Event views: an event with what a face shows about it, loaded for a whole page at once. */
import type { PushCommit, StoredPush } from '../../domain/push-payload.js';
import {
  type Action,
  type PushAction,
  type RefType,
  actionFromCode,
  actionName,
} from '../../domain/vocabulary.js';
import type { EventRow, PushPayloadRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { NoteView, ProjectView, UserView } from '../views.js';
import { lookUpTargets } from './event-targets.js';

/** A push as stored (short ref, derived action, commit title, the newest 20 commits). */
export type { PushCommit as Commit, StoredPush as PushView };

export interface EventView {
  id: number;
  projectId: number;
  project: ProjectView;
  action: Action;
  actionName: string;
  targetType: string | null;
  targetId: number | null;
  targetIid: number | null;
  targetTitle: string | null;
  authorId: number;
  author: UserView | null;
  createdAt: number;
  note: NoteView | null;
  /** For a comment: the title of the issue or merge request it is on (pages print it). */
  noteableTitle: string | null;
  push: StoredPush | null;
}

/**
 * Everything a page of event views needs, one query per kind of row. Outside a request its
 * rounds of lookups still share one reading (store `arrive`).
 */
export function hydrateEvents(store: Store, rows: readonly EventRow[]): Promise<EventView[]> {
  if (rows.length === 0) return Promise.resolve([]);
  return store.arrive(() => hydrate(store, rows));
}

async function hydrate(store: Store, rows: readonly EventRow[]): Promise<EventView[]> {
  const refs = rows.map((r) => ({ targetType: r.target_type, targetId: r.target_id }));
  const [found, payloads] = await Promise.all([
    lookUpTargets(store, refs, {
      projectIds: rows.map((r) => r.project_id),
      userIds: rows.map((r) => r.author_id),
    }),
    store.content.pushPayloads(rows.filter((r) => r.action === 5).map((r) => r.id)),
  ]);
  const pushes = new Map(payloads.map((p) => [p.event_id, toPushView(p)]));
  return rows.map((row, i) => {
    const action = actionFromCode(row.action);
    const push = pushes.get(row.id) ?? null;
    // Only this event's project's object: another one (the id given again after a deletion) is
    // shown as GitLab shows a deleted target.
    const target = found.target(refs[i]!, row.project_id);
    const note = target?.type === 'Note' ? target.note : null;
    return {
      id: row.id,
      projectId: row.project_id,
      project: found.project(row.project_id)!,
      action,
      actionName: actionName(action, row.target_type, push?.action ?? null),
      targetType: row.target_type,
      targetId: row.target_id,
      targetIid: row.target_id === null ? null : (target?.iid ?? row.target_id),
      targetTitle: target?.title ?? null,
      authorId: row.author_id,
      author: found.user(row.author_id),
      createdAt: row.created_at,
      note,
      noteableTitle: note && found.noteableTitle(note),
      push,
    };
  });
}

function toPushView(row: PushPayloadRow): StoredPush {
  return {
    action: row.action as PushAction,
    refType: row.ref_type as RefType,
    ref: row.ref,
    commitFrom: row.commit_from,
    commitTo: row.commit_to,
    commitCount: row.commit_count,
    commitTitle: row.commit_title,
    commits: JSON.parse(row.commits) as PushCommit[],
  };
}
