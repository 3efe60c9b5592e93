/**
 * Service views → GraphQL models (plain objects tagged with `__typename`, so every field
 * is a plain property: cheap to resolve, and compiled well by Mercurius' JIT). One presenter per
 * request memoizes users and projects, which recur on every page.
 */
import {
  type ProjectLinks,
  avatarUrl,
  projectWebUrl,
  qualifiedRef,
  repositorySshUrl,
  userWebUrl,
} from '../domain/links.js';
import { BLANK_SHA } from '../domain/vocabulary.js';
import type { EventTarget, EventView, PushView } from '../services/activity/activity.js';
import type {
  IssueView,
  MergeRequestView,
  TrackedView,
  MilestoneView,
  NoteView,
  ProjectView,
  SnippetView,
  UserView,
} from '../services/views.js';
import { type NodeTypeName, toGlobalId } from './ids.js';
import type {
  IssueType,
  MergeRequestType,
  MilestoneType,
  NoteType,
  SnippetType,
} from './types/content.js';
import type { EventType } from './types/event.js';
import type { ProjectType } from './types/project.js';
import type { PushDataType } from './types/push.js';
import type { UserType } from './types/user.js';

export class Presenter {
  private readonly users = new Map<number, UserType>();
  private readonly projects = new Map<number, ProjectType>();

  constructor(
    private readonly links: ProjectLinks,
    private readonly events: WeakMap<EventView, EventType> = new WeakMap(),
  ) {}

  user(row: UserView): UserType {
    return remembered(this.users, row.id, () => ({
      ...node('User', row.id),
      username: row.username,
      name: row.name,
      state: row.state,
      locked: false,
      avatarUrl: avatarUrl(row),
      webUrl: userWebUrl(this.links.externalUrl, row),
    }));
  }

  maybeUser(row: UserView | null | undefined): UserType | null {
    return row ? this.user(row) : null;
  }

  project(row: ProjectView): ProjectType {
    return remembered(this.projects, row.id, () => ({
      ...node('Project', row.id),
      name: row.name,
      path: row.path,
      fullPath: row.fullPath,
      description: row.description,
      visibility: row.visibility,
      webUrl: projectWebUrl(this.links.externalUrl, row),
      createdAt: row.createdAt,
    }));
  }

  /**
   * Event models depend only on the view and the external URL, and hydrated views are cached
   * per listing window: the models are cached alongside (per server, weakly).
   */
  event(view: EventView): EventType {
    return remembered(this.events, view, () => this.buildEvent(view));
  }

  private buildEvent(view: EventView): EventType {
    return {
      ...node('Event', view.id),
      action: view.action,
      actionName: view.actionName,
      createdAt: new Date(view.createdAt).toISOString(),
      projectId: view.projectId,
      authorId: view.authorId,
      targetType: view.targetType as EventType['targetType'],
      targetId: view.targetId,
      targetIid: view.targetIid,
      targetTitle: view.targetTitle,
      author: this.maybeUser(view.author),
      project: this.project(view.project),
      imported: false,
      payload: view.note ? this.note(view.note) : view.push ? this.push(view, view.push) : null,
    };
  }

  note(note: NoteView): NoteType {
    return {
      ...node('Note', note.id),
      body: note.body,
      system: note.system,
      attachment: note.attachment,
      noteableType: note.noteableType,
      noteableId: note.noteableId,
      noteableIid: note.noteableIid,
      projectId: note.projectId,
      author: this.maybeUser(note.author),
      createdAt: note.createdAt,
      updatedAt: note.updatedAt,
    };
  }

  push(view: EventView, push: PushView): PushDataType {
    const project = view.project;
    return {
      __typename: 'PushData',
      action: push.action,
      refType: push.refType,
      ref: qualifiedRef(push.refType, push.ref),
      refName: push.ref,
      before: push.commitFrom ?? BLANK_SHA,
      after: push.commitTo ?? BLANK_SHA,
      commitFrom: push.commitFrom,
      commitTo: push.commitTo,
      commitCount: push.commitCount,
      commitTitle: push.commitTitle,
      commits: push.commits.map((commit) => ({ ...commit, timestamp: instant(commit.timestamp) })),
      repository: {
        name: project.name,
        url: repositorySshUrl(this.links.ssh, project),
        description: project.description,
        homepage: projectWebUrl(this.links.externalUrl, project),
      },
      userId: view.authorId,
      userName: view.author?.name ?? '',
      refCount: null,
    };
  }

  /** The model of an event's target (or of a node looked up by id). */
  target(target: EventTarget) {
    switch (target.type) {
      case 'Issue':
        return this.issue(target.issue, target.author);
      case 'MergeRequest':
        return this.mergeRequest(target.mergeRequest, target.author);
      case 'Milestone':
        return this.milestone(target.milestone);
      case 'Snippet':
        return this.snippet(target.snippet, target.author);
      case 'Note':
        return this.note(target.note);
      case 'Project':
        return this.project(target.project);
      case 'User':
        return this.user(target.user);
    }
  }

  issue(issue: IssueView, author: UserView | null): IssueType {
    return {
      ...this.tracked(issue, author),
      ...node('Issue', issue.id),
      confidential: issue.confidential,
    };
  }

  mergeRequest(mr: MergeRequestView, author: UserView | null): MergeRequestType {
    return {
      ...this.tracked(mr, author),
      ...node('MergeRequest', mr.id),
      sourceBranch: mr.sourceBranch,
      targetBranch: mr.targetBranch,
      mergedAt: mr.mergedAt,
    };
  }

  /** What issues and merge requests share. */
  private tracked(item: TrackedView, author: UserView | null) {
    return {
      iid: item.iid,
      title: item.title,
      description: item.description,
      state: item.state,
      projectId: item.projectId,
      author: this.maybeUser(author),
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
      closedAt: item.closedAt,
    };
  }

  /** A project this request has presented already (its web URL is then known), by id. */
  presentedProject(id: number): ProjectType | undefined {
    return this.projects.get(id);
  }

  milestone(milestone: MilestoneView): MilestoneType {
    return {
      ...node('Milestone', milestone.id),
      iid: milestone.iid,
      title: milestone.title,
      projectId: milestone.projectId,
      createdAt: milestone.createdAt,
    };
  }

  snippet(snippet: SnippetView, author: UserView | null): SnippetType {
    return {
      ...node('Snippet', snippet.id),
      title: snippet.title,
      projectId: snippet.projectId,
      author: this.maybeUser(author),
      createdAt: snippet.createdAt,
    };
  }
}

/** What every node's model starts with: its type, its global id and the numeric id REST uses. */
function node<T extends NodeTypeName>(typename: T, id: number) {
  return { __typename: typename, id: toGlobalId(typename, id), databaseId: id };
}

/** The model `models` holds for `key`, built and kept on first use. */
function remembered<K, V>(
  models: { get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  build: () => V,
): V {
  let model = models.get(key);
  if (model === undefined) {
    model = build();
    models.set(key, model);
  }
  return model;
}

/** A commit time as stored (ISO 8601 with an offset) as the `Time` scalar prints it (UTC). */
function instant(text: string): number | string {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : text;
}
