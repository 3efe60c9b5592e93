/**
 * The activity service as one request sees it: a viewer, batched lookups (DataLoaders) and the
 * sources it already resolved. A graph face (GraphQL) asks it for a project, then for that
 * project's events, without resolving the project twice and without holding store rows.
 */
import { NotFoundError } from '../../domain/errors.js';
import type { EventFilter } from '../../domain/filters.js';
import {
  type Viewer,
  canReadConfidential,
  canReadMergeRequests,
  canReadPersonalSnippet,
} from '../../domain/visibility.js';
import type { Store } from '../../store/store.js';
import type { ActivityService, ResolvedProject } from './activity.js';
import type { EventListing } from './event-listing.js';
import type { EventView } from './event-views.js';
import { Loaders } from './loaders.js';
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

/**
 * What one request read from the event log, for a cache that keeps its answer (GraphQL's result
 * cache). Every other read of a reader is of rows whose writes move the listing version (users,
 * projects, memberships, content: migration 009), which the cache checks on its own.
 */
export interface EventReads {
  /** Each listing handed out, with its mark read before any of its rows. */
  listings: Array<{ listing: EventListing; mark: string }>;
  /** An event was read by id, outside any listing: the answer may change with any append. */
  byId: boolean;
}

export class ActivityReader {
  private readonly loaders: Loaders;
  /** Projects resolved for this viewer (readability and access level), by id. */
  private readonly projects = new Map<number, ResolvedProject>();

  /**
   * `reads`, when given, records what this reader reads from the event log (see `EventReads`).
   * Faces that cache whole answers must read events through a reader only.
   */
  constructor(
    private readonly activity: ActivityService,
    store: Store,
    readonly viewer: Viewer | null,
    self: UserView | null,
    private readonly reads: EventReads | null = null,
  ) {
    this.loaders = new Loaders(store);
    if (self) this.users.set(self.id, self);
  }

  /** Users already looked up by this request, by id. */
  private readonly users = new Map<number, UserView>();

  /** A user by id or username; NOT_FOUND when there is none. */
  async user(idOrUsername: string): Promise<UserView> {
    const user = await this.activity.findUser(idOrUsername);
    this.users.set(user.id, user);
    return user;
  }

  /** A user by id through the batch loader; null when there is none. */
  async userById(id: number): Promise<UserView | null> {
    const known = this.users.get(id);
    if (known) return known;
    const row = await this.loaders.users.load(id);
    return row ? userView(row) : null;
  }

  /** A project by id or full path, readable by the viewer; NOT_FOUND otherwise. */
  async project(idOrPath: string): Promise<ProjectView> {
    return (await this.resolveProject(idOrPath)).project;
  }

  /** Like `project`, but null instead of NOT_FOUND (global-id lookups). */
  async projectOrNull(id: number): Promise<ProjectView | null> {
    try {
      return await this.project(String(id));
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  private async resolveProject(idOrPath: string): Promise<ResolvedProject> {
    const known = /^\d+$/.test(idOrPath) ? this.projects.get(Number(idOrPath)) : undefined;
    if (known) return known;
    const resolved = await this.activity.findProject(idOrPath, this.viewer);
    this.projects.set(resolved.project.id, resolved);
    return resolved;
  }

  /** The viewer's events (`scope` all: every event in the viewer's projects). */
  viewerEvents(
    viewer: Viewer,
    scope: string | undefined,
    filter: EventFilter,
  ): Promise<EventListing> {
    return this.recorded(this.activity.viewerListing(viewer, scope, filter));
  }

  /** A user's events the viewer may see; empty for private or blocked profiles. */
  async userEvents(userId: number, filter: EventFilter): Promise<EventListing> {
    const user = this.users.get(userId) ?? (await this.user(String(userId)));
    return this.recorded(this.activity.userListing(user, filter, this.viewer));
  }

  /** A project's events the viewer may see (NOT_FOUND when the project is not readable). */
  async projectEvents(projectId: number, filter: EventFilter): Promise<EventListing> {
    const resolved = await this.resolveProject(String(projectId));
    return this.recorded(this.activity.projectListing(resolved, filter, this.viewer));
  }

  /** Records a listing's mark, before the caller reads any of its rows. */
  private async recorded(listing: EventListing): Promise<EventListing> {
    if (this.reads) this.reads.listings.push({ listing, mark: await listing.mark() });
    return listing;
  }

  /** One event by id under a listing's visibility rules; null when missing or hidden. */
  event(id: number): Promise<EventView | null> {
    if (this.reads) this.reads.byId = true;
    return this.activity.findEvent(id, this.viewer);
  }

  /**
   * An issue, merge request, milestone, note or snippet by id, under the rules of the events that
   * show it: its project must be readable by the viewer, and a confidential issue (or a note on
   * one) needs Reporter, authorship or admin. Null when missing or hidden.
   */
  async content(
    type: 'Issue' | 'MergeRequest' | 'Milestone' | 'Note' | 'Snippet',
    id: number,
  ): Promise<EventTarget | null> {
    const target = await this.targetById({ targetType: type, targetId: id });
    if (!target) return null;
    const projectId = contentProjectId(target);
    if (projectId === null) {
      // Only snippets have no project.
      return target.type === 'Snippet' && canReadPersonalSnippet(target.snippet, this.viewer)
        ? target
        : null;
    }
    let resolved: ResolvedProject;
    try {
      resolved = await this.resolveProject(String(projectId));
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
    let issue: { confidential: boolean; authorId: number } | null = null;
    if (target.type === 'Issue') issue = target.issue;
    if (target.type === 'Note' && target.note.noteableType === 'Issue') {
      const row = await this.loaders.issues.load(target.note.noteableId);
      issue = row ? issueView(row) : null;
    }
    if (issue?.confidential && !canReadConfidential(issue, this.viewer, resolved.accessLevel)) {
      return null;
    }
    const onMergeRequest =
      target.type === 'MergeRequest' ||
      (target.type === 'Note' && target.note.noteableType === 'MergeRequest');
    if (
      onMergeRequest &&
      !canReadMergeRequests(resolved.project.visibility, this.viewer, resolved.accessLevel)
    ) {
      return null;
    }
    return target;
  }

  /**
   * What an event is about, loaded in batches across the request; null if not modelled, gone, or
   * in another project than the event's (an id given again after the target was deleted must not
   * show another project's object: GitLab shows a deleted target as null).
   */
  async target(event: {
    projectId: number;
    targetType: string | null;
    targetId: number | null;
  }): Promise<EventTarget | null> {
    const target = await this.targetById(event);
    if (!target || target.type === 'User') return target;
    return contentProjectId(target) === event.projectId ? target : null;
  }

  private async targetById(event: {
    targetType: string | null;
    targetId: number | null;
  }): Promise<EventTarget | null> {
    const id = event.targetId;
    if (id === null) return null;
    const { loaders } = this;
    const author = (authorId: number) => this.userById(authorId);
    switch (event.targetType) {
      case 'Issue': {
        const row = await loaders.issues.load(id);
        return row
          ? ({ type: 'Issue', issue: issueView(row), author: await author(row.author_id) } as const)
          : null;
      }
      case 'MergeRequest': {
        const row = await loaders.mergeRequests.load(id);
        return row
          ? ({
              type: 'MergeRequest',
              mergeRequest: mergeRequestView(row),
              author: await author(row.author_id),
            } as const)
          : null;
      }
      case 'Milestone': {
        const row = await loaders.milestones.load(id);
        return row ? ({ type: 'Milestone', milestone: milestoneView(row) } as const) : null;
      }
      case 'Snippet': {
        const row = await loaders.snippets.load(id);
        return row
          ? ({
              type: 'Snippet',
              snippet: snippetView(row),
              author: await author(row.author_id),
            } as const)
          : null;
      }
      case 'Note': {
        const row = await loaders.notes.load(id);
        if (!row) return null;
        const [noteAuthor, noteable] = await Promise.all([
          author(row.author_id),
          row.noteable_type === 'Issue'
            ? loaders.issues.load(row.noteable_id)
            : row.noteable_type === 'MergeRequest'
              ? loaders.mergeRequests.load(row.noteable_id)
              : null,
        ]);
        return {
          type: 'Note',
          note: noteView(row, noteAuthor, noteable?.iid ?? null),
        } as const;
      }
      case 'Project': {
        const row = await loaders.projects.load(id);
        return row ? ({ type: 'Project', project: projectView(row) } as const) : null;
      }
      case 'User': {
        const user = await this.userById(id);
        return user ? ({ type: 'User', user } as const) : null;
      }
      default:
        return null;
    }
  }
}

function contentProjectId(target: EventTarget): number | null {
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
