/**
 * Event views: an event with everything a face shows about it (author, project, target title and
 * iid, note, push payload), loaded for a whole page at once.
 */
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
import {
  type NoteView,
  type ProjectView,
  type UserView,
  noteView,
  projectView,
  userView,
} from '../views.js';

/** A commit as push payloads store it (the newest 20 of a push). */
export type Commit = PushCommit;

/** A push as stored: short ref, derived action, commit title and the newest commits. */
export type PushView = StoredPush;

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
  push: PushView | null;
}

/**
 * Batch-loads everything an event view needs: one query per kind of thing, not per event. In the
 * request's read context, or (outside a request) as of its own start: its two rounds of lookups
 * (the projects, then the users, which the notes name too) share one reading (store `arrive`).
 */
export function hydrateEvents(store: Store, rows: readonly EventRow[]): Promise<EventView[]> {
  if (rows.length === 0) return Promise.resolve([]);
  return store.arrive(() => hydrate(store, rows));
}

async function hydrate(store: Store, rows: readonly EventRow[]): Promise<EventView[]> {
  const ids = (type: string) =>
    unique(
      rows.filter((r) => r.target_type === type && r.target_id !== null).map((r) => r.target_id!),
    );
  const pushIds = rows.filter((r) => r.action === 5).map((r) => r.id);
  const [issues, mrs, milestones, snippets, notes, payloads, projects] = await Promise.all([
    store.content.issues(ids('Issue')),
    store.content.mergeRequests(ids('MergeRequest')),
    store.content.milestones(ids('Milestone')),
    store.content.snippets(ids('Snippet')),
    store.content.notes(ids('Note')),
    store.content.pushPayloads(pushIds),
    store.projects.byIds(unique(rows.map((r) => r.project_id).concat(ids('Project')))),
  ]);
  const noteIssueIds = notes.filter((n) => n.noteable_type === 'Issue').map((n) => n.noteable_id);
  const noteMrIds = notes
    .filter((n) => n.noteable_type === 'MergeRequest')
    .map((n) => n.noteable_id);
  const [noteIssues, noteMrs, users] = await Promise.all([
    store.content.issues(unique(noteIssueIds)),
    store.content.mergeRequests(unique(noteMrIds)),
    store.users.byIds(
      unique(
        rows
          .map((r) => r.author_id)
          .concat(
            ids('User'),
            notes.map((n) => n.author_id),
          ),
      ),
    ),
  ]);
  const byId = <T extends { id: number }>(list: T[]) => new Map(list.map((x) => [x.id, x]));
  const issueMap = byId(issues.concat(noteIssues));
  const mrMap = byId(mrs.concat(noteMrs));
  const milestoneMap = byId(milestones);
  const snippetMap = byId(snippets);
  const noteMap = byId(notes);
  const projectMap = byId(projects);
  const userMap = byId(users);
  const payloadMap = new Map(payloads.map((p) => [p.event_id, p]));

  return rows.map((row) => {
    const action = actionFromCode(row.action);
    const author = userMap.get(row.author_id);
    const push = payloadMap.get(row.id);
    const pushView = push ? toPushView(push) : null;
    let targetIid: number | null = row.target_id;
    let targetTitle: string | null = null;
    let note: NoteView | null = null;
    let noteableTitle: string | null = null;
    const tid = row.target_id;
    // A target is only ever this event's project's: one found elsewhere (an id given again after
    // the target was deleted, a hand-made row) is shown as GitLab shows a deleted target.
    const here = <T extends { project_id: number | null }>(t: T | undefined) =>
      t !== undefined && t.project_id === row.project_id ? t : undefined;
    if (tid !== null) {
      switch (row.target_type) {
        case 'Issue': {
          const t = here(issueMap.get(tid));
          if (t) [targetIid, targetTitle] = [t.iid, t.title];
          break;
        }
        case 'MergeRequest': {
          const t = here(mrMap.get(tid));
          if (t) [targetIid, targetTitle] = [t.iid, t.title];
          break;
        }
        case 'Milestone': {
          const t = here(milestoneMap.get(tid));
          if (t) [targetIid, targetTitle] = [t.iid, t.title];
          break;
        }
        case 'Snippet':
          targetTitle = here(snippetMap.get(tid))?.title ?? null;
          break;
        case 'Project':
          targetTitle = tid === row.project_id ? (projectMap.get(tid)?.name ?? null) : null;
          break;
        case 'User':
          targetTitle = userMap.get(tid)?.name ?? null;
          break;
        case 'Note': {
          const n = here(noteMap.get(tid));
          if (n) {
            const noteable = here(
              n.noteable_type === 'Issue'
                ? issueMap.get(n.noteable_id)
                : n.noteable_type === 'MergeRequest'
                  ? mrMap.get(n.noteable_id)
                  : undefined,
            );
            const noteAuthor = userMap.get(n.author_id);
            note = noteView(n, noteAuthor ? userView(noteAuthor) : null, noteable?.iid ?? null);
            noteableTitle = noteable?.title ?? null;
          }
          break;
        }
        default:
          break;
      }
    }
    return {
      id: row.id,
      projectId: row.project_id,
      project: projectView(projectMap.get(row.project_id)!),
      action,
      actionName: actionName(action, row.target_type, pushView?.action ?? null),
      targetType: row.target_type,
      targetId: row.target_id,
      targetIid: row.target_id === null ? null : targetIid,
      targetTitle,
      authorId: row.author_id,
      author: author ? userView(author) : null,
      createdAt: row.created_at,
      note,
      noteableTitle,
      push: pushView,
    };
  });
}

function unique(values: number[]): number[] {
  return [...new Set(values)];
}

function toPushView(row: PushPayloadRow): PushView {
  return {
    action: row.action as PushAction,
    refType: row.ref_type as RefType,
    ref: row.ref,
    commitFrom: row.commit_from,
    commitTo: row.commit_to,
    commitCount: row.commit_count,
    commitTitle: row.commit_title,
    commits: JSON.parse(row.commits) as Commit[],
  };
}
