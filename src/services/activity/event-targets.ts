/**
 * What events are about (their targets), looked up for many events at once: REST pages, feeds and
 * GraphQL (through a DataLoader) all read targets here, so they show the same object or none.
 */
import type { Store } from '../../store/store.js';
import {
  type IssueView,
  type MergeRequestView,
  type MilestoneView,
  type NoteView,
  type ProjectView,
  type SnippetView,
  type UserView,
  issueView,
  mergeRequestView,
  milestoneView,
  noteView,
  projectView,
  snippetView,
  userView,
} from '../views.js';

/** The object an event is about, with what a face shows beside it. */
export type EventTarget =
  | { type: 'Issue'; issue: IssueView; author: UserView | null }
  | { type: 'MergeRequest'; mergeRequest: MergeRequestView; author: UserView | null }
  | { type: 'Milestone'; milestone: MilestoneView }
  | { type: 'Snippet'; snippet: SnippetView; author: UserView | null }
  | { type: 'Note'; note: NoteView }
  | { type: 'Project'; project: ProjectView }
  | { type: 'User'; user: UserView };

export interface TargetRef {
  targetType: string | null;
  targetId: number | null;
}

/** Beside the targets, the projects and users a caller shows too (an event's own). */
export interface AlsoWanted {
  projectIds?: readonly number[];
  userIds?: readonly number[];
}

/** The rows read for a set of targets; `target` makes views of them. */
export interface FoundTargets {
  /** Null if not modelled, missing, or (`projectId` given) in another project. */
  target(ref: TargetRef, projectId?: number): EventTarget | null;
  /** The title of the issue or merge request a note is on. */
  noteableTitle(note: NoteView): string | null;
  project(id: number): ProjectView | undefined;
  user(id: number): UserView | null;
}

type Rows<T> = Map<number, T>;

/**
 * Two rounds, one query per kind of row each: the targets (and projects), then the users (event,
 * target and note authors) and the issues or merge requests the notes are on.
 */
export async function lookUpTargets(
  store: Store,
  refs: readonly TargetRef[],
  also: AlsoWanted = {},
): Promise<FoundTargets> {
  const ids = (type: string) =>
    unique(
      refs.filter((r) => r.targetType === type && r.targetId !== null).map((r) => r.targetId!),
    );
  const [issues, mrs, milestones, snippets, notes, projects] = await Promise.all([
    store.content.issues(ids('Issue')),
    store.content.mergeRequests(ids('MergeRequest')),
    store.content.milestones(ids('Milestone')),
    store.content.snippets(ids('Snippet')),
    store.content.notes(ids('Note')),
    store.projects.byIds(unique([...(also.projectIds ?? []), ...ids('Project')])),
  ]);
  const on = (type: string) =>
    unique(notes.filter((n) => n.noteable_type === type).map((n) => n.noteable_id));
  const authors = [...issues, ...mrs, ...snippets, ...notes].map((row) => row.author_id);
  const [noteIssues, noteMrs, users] = await Promise.all([
    store.content.issues(on('Issue')),
    store.content.mergeRequests(on('MergeRequest')),
    store.users.byIds(unique([...(also.userIds ?? []), ...ids('User'), ...authors])),
  ]);
  const issueRows = byId(issues.concat(noteIssues));
  const mrRows = byId(mrs.concat(noteMrs));
  const projectRows = byId(projects);
  const userViews = new Map(users.map((row) => [row.id, userView(row)]));
  const milestoneRows = byId(milestones);
  const snippetRows = byId(snippets);
  const noteRows = byId(notes);
  const user = (id: number) => userViews.get(id) ?? null;

  /** An object's view if it exists and, when `projectId` is given, is in that project. */
  function view<R extends { project_id: number | null }, V>(
    rows: Rows<R>,
    id: number,
    projectId: number | undefined,
    make: (row: R) => V,
  ): V | null {
    const row = rows.get(id);
    return row && (projectId === undefined || row.project_id === projectId) ? make(row) : null;
  }

  /** A note's issue or merge request, in the note's project (GitLab shows no other). */
  function noteable(type: string, id: number, projectId: number) {
    const rows: Rows<{ project_id: number; iid: number; title: string }> | undefined =
      type === 'Issue' ? issueRows : type === 'MergeRequest' ? mrRows : undefined;
    return rows ? view(rows, id, projectId, (row) => row) : null;
  }

  function target(ref: TargetRef, projectId?: number): EventTarget | null {
    const id = ref.targetId;
    if (id === null) return null;
    switch (ref.targetType) {
      case 'Issue':
        return view(issueRows, id, projectId, (row) => ({
          type: 'Issue',
          issue: issueView(row),
          author: user(row.author_id),
        }));
      case 'MergeRequest':
        return view(mrRows, id, projectId, (row) => ({
          type: 'MergeRequest',
          mergeRequest: mergeRequestView(row),
          author: user(row.author_id),
        }));
      case 'Milestone':
        return view(milestoneRows, id, projectId, (row) => ({
          type: 'Milestone',
          milestone: milestoneView(row),
        }));
      case 'Snippet':
        return view(snippetRows, id, projectId, (row) => ({
          type: 'Snippet',
          snippet: snippetView(row),
          author: user(row.author_id),
        }));
      case 'Note':
        return view(noteRows, id, projectId, (row) => ({
          type: 'Note',
          note: noteView(
            row,
            user(row.author_id),
            noteable(row.noteable_type, row.noteable_id, row.project_id)?.iid ?? null,
          ),
        }));
      case 'Project': {
        const row = projectRows.get(id);
        return row && (projectId ?? id) === id
          ? { type: 'Project', project: projectView(row) }
          : null;
      }
      case 'User': {
        const found = user(id);
        return found && { type: 'User', user: found };
      }
      default:
        return null;
    }
  }

  return {
    target,
    noteableTitle: (note) =>
      noteable(note.noteableType, note.noteableId, note.projectId)?.title ?? null,
    project: (id) => {
      const row = projectRows.get(id);
      return row && projectView(row);
    },
    user,
  };
}

/** The project a target belongs to (null: a user, or a personal snippet). */
export function targetProjectId(target: EventTarget): number | null {
  switch (target.type) {
    case 'Issue':
      return target.issue.projectId;
    case 'MergeRequest':
      return target.mergeRequest.projectId;
    case 'Milestone':
      return target.milestone.projectId;
    case 'Note':
      return target.note.projectId;
    case 'Snippet':
      return target.snippet.projectId;
    case 'Project':
      return target.project.id;
    case 'User':
      return null;
  }
}

function byId<T extends { id: number }>(rows: readonly T[]): Rows<T> {
  return new Map(rows.map((row) => [row.id, row]));
}

export function unique(values: readonly number[]): number[] {
  return [...new Set(values)];
}
