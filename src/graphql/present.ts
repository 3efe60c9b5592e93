/**
 * Rows and service views → GraphQL models (plain objects tagged with `__typename`, so every field
 * is a plain property: cheap to resolve, and compiled well by Mercurius' JIT). One presenter per
 * request memoizes users and projects, which recur on every page.
 */
import {
  avatarUrl,
  projectWebUrl,
  qualifiedRef,
  repositorySshUrl,
  userWebUrl,
} from '../domain/links.js';
import { BLANK_SHA, type Visibility } from '../domain/vocabulary.js';
import type { EventView, NoteView, PushView } from '../services/activity.js';
import type {
  IssueRow,
  MergeRequestRow,
  MilestoneRow,
  NoteRow,
  ProjectRow,
  SnippetRow,
  UserRow,
} from '../store/schema.js';
import { toGlobalId } from './ids.js';
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
    private readonly externalUrl: string,
    private readonly events: WeakMap<EventView, EventType> = new WeakMap(),
  ) {}

  user(row: UserRow): UserType {
    let user = this.users.get(row.id);
    if (!user) {
      user = {
        __typename: 'User',
        id: toGlobalId('User', row.id),
        databaseId: row.id,
        username: row.username,
        name: row.name,
        state: row.state,
        avatarUrl: avatarUrl(row),
        webUrl: userWebUrl(this.externalUrl, row),
      };
      this.users.set(row.id, user);
    }
    return user;
  }

  maybeUser(row: UserRow | null | undefined): UserType | null {
    return row ? this.user(row) : null;
  }

  project(row: ProjectRow): ProjectType {
    let project = this.projects.get(row.id);
    if (!project) {
      project = {
        __typename: 'Project',
        id: toGlobalId('Project', row.id),
        databaseId: row.id,
        name: row.name,
        path: row.path,
        fullPath: row.full_path,
        description: row.description,
        visibility: row.visibility as Visibility,
        webUrl: projectWebUrl(this.externalUrl, row),
        createdAt: row.created_at,
      };
      this.projects.set(row.id, project);
    }
    return project;
  }

  /**
   * Event models depend only on the view and the external URL, and hydrated views are cached
   * per listing window: the models are cached alongside (per server, weakly).
   */
  event(view: EventView): EventType {
    let model = this.events.get(view);
    if (!model) {
      model = this.buildEvent(view);
      this.events.set(view, model);
    }
    return model;
  }

  private buildEvent(view: EventView): EventType {
    return {
      __typename: 'Event',
      id: toGlobalId('Event', view.id),
      databaseId: view.id,
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
      payload: view.note ? this.noteView(view.note) : view.push ? this.push(view, view.push) : null,
    };
  }

  noteView(note: NoteView): NoteType {
    return this.note(note.row, note.author, note.noteableIid);
  }

  note(row: NoteRow, author: UserRow | null, noteableIid: number | null): NoteType {
    return {
      __typename: 'Note',
      databaseId: row.id,
      body: row.body,
      system: row.system === 1,
      attachment: row.attachment,
      noteableType: row.noteable_type,
      noteableId: row.noteable_id,
      noteableIid,
      projectId: row.project_id,
      author: this.maybeUser(author),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
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
      commits: push.commits,
      repository: {
        name: project.name,
        url: repositorySshUrl(this.externalUrl, project),
        description: project.description,
        homepage: projectWebUrl(this.externalUrl, project),
      },
    };
  }

  issue(row: IssueRow, author: UserRow | null): IssueType {
    return {
      __typename: 'Issue',
      databaseId: row.id,
      iid: row.iid,
      title: row.title,
      state: row.state,
      confidential: row.confidential === 1,
      projectId: row.project_id,
      author: this.maybeUser(author),
      createdAt: row.created_at,
    };
  }

  mergeRequest(row: MergeRequestRow, author: UserRow | null): MergeRequestType {
    return {
      __typename: 'MergeRequest',
      databaseId: row.id,
      iid: row.iid,
      title: row.title,
      state: row.state,
      projectId: row.project_id,
      author: this.maybeUser(author),
      createdAt: row.created_at,
    };
  }

  milestone(row: MilestoneRow): MilestoneType {
    return {
      __typename: 'Milestone',
      databaseId: row.id,
      iid: row.iid,
      title: row.title,
      projectId: row.project_id,
      createdAt: row.created_at,
    };
  }

  snippet(row: SnippetRow, author: UserRow | null): SnippetType {
    return {
      __typename: 'Snippet',
      databaseId: row.id,
      title: row.title,
      projectId: row.project_id,
      author: this.maybeUser(author),
      createdAt: row.created_at,
    };
  }
}
