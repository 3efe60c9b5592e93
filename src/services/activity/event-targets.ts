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
  mergeRequestView as mrView,
  milestoneView,
  noteView,
  projectView,
  snippetView,
  userView,
} from '../views.js';

/** The object an event is about, with what a face shows beside it. */
export type EventTarget = About & Variant;

type Variant =
  | { type: 'Issue'; issue: IssueView; author: UserView | null }
  | { type: 'MergeRequest'; mergeRequest: MergeRequestView; author: UserView | null }
  | { type: 'Milestone'; milestone: MilestoneView }
  | { type: 'Snippet'; snippet: SnippetView; author: UserView | null }
  | { type: 'Note'; note: NoteView }
  | { type: 'Project'; project: ProjectView }
  | { type: 'User'; user: UserView };

/** What every target tells beside its view: REST shows iid and title, rules need the project. */
interface About {
  /** Null for a user and a personal snippet. */
  projectId: number | null;
  iid: number | null;
  title: string | null;
}

export interface TargetRef {
  targetType: string | null;
  targetId: number | null;
}

type Rows<T> = Map<number, T>;

/**
 * Two rounds, one query per kind of row each: the targets and projects (`also`: an event's own),
 * then the users (`also`, authors) and the issues or merge requests the notes are on.
 */
export async function lookUpTargets(
  store: Store,
  refs: readonly TargetRef[],
  also: { projectIds?: readonly number[]; userIds?: readonly number[] } = {},
) {
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

  const by = (row: { author_id: number }) => user(row.author_id);

  /** Targets of one kind by id: null if missing or (`projectId` given) in another project. */
  function kind<R extends { project_id: number | null; iid?: number; title?: string }>(
    rows: Rows<R>,
    make: (row: R) => Variant,
  ) {
    return (id: number, projectId?: number): EventTarget | null => {
      const row = rows.get(id);
      if (!row || (projectId !== undefined && row.project_id !== projectId)) return null;
      const about = { projectId: row.project_id, iid: row.iid ?? null, title: row.title ?? null };
      return { ...make(row), ...about } as EventTarget;
    };
  }

  const kinds: Record<string, (id: number, projectId?: number) => EventTarget | null> = {
    Issue: kind(issueRows, (r) => ({ type: 'Issue', issue: issueView(r), author: by(r) })),
    MergeRequest: kind(mrRows, (r) => ({
      type: 'MergeRequest',
      mergeRequest: mrView(r),
      author: by(r),
    })),
    Milestone: kind(milestoneRows, (r) => ({ type: 'Milestone', milestone: milestoneView(r) })),
    Snippet: kind(snippetRows, (r) => ({
      type: 'Snippet',
      snippet: snippetView(r),
      author: by(r),
    })),
    Note: kind(noteRows, (r) => ({
      type: 'Note',
      note: noteView(r, by(r), noteable(r)?.iid ?? null),
    })),
    Project: (id, projectId) => {
      const row = projectRows.get(id);
      if (!row || (projectId ?? id) !== id) return null;
      return {
        type: 'Project',
        project: projectView(row),
        projectId: id,
        iid: null,
        title: row.name,
      };
    },
    User: (id) => {
      const found = user(id);
      return found && { type: 'User', user: found, projectId: null, iid: null, title: found.name };
    },
  };

  /** A note's issue or merge request, in the note's project (GitLab shows no other). */
  function noteable(note: { noteable_type: string; noteable_id: number; project_id: number }) {
    const rows =
      note.noteable_type === 'Issue'
        ? issueRows
        : note.noteable_type === 'MergeRequest'
          ? mrRows
          : undefined;
    const row = rows?.get(note.noteable_id);
    return row?.project_id === note.project_id ? row : undefined;
  }

  return {
    /** Null if not modelled, missing, or (`projectId` given) in another project. */
    target: (ref: TargetRef, projectId?: number): EventTarget | null => {
      const { targetType: type, targetId: id } = ref;
      if (id === null || type === null || !Object.hasOwn(kinds, type)) return null;
      return kinds[type]!(id, projectId);
    },
    /** The title of the issue or merge request a note is on. */
    noteableTitle: (note: NoteView) => noteable(noteRows.get(note.id)!)?.title ?? null,
    project: (id: number) => {
      const row = projectRows.get(id);
      return row && projectView(row);
    },
    user,
  };
}

function byId<T extends { id: number }>(rows: readonly T[]): Rows<T> {
  return new Map(rows.map((row) => [row.id, row]));
}

function unique(values: readonly number[]): number[] {
  return [...new Set(values)];
}
