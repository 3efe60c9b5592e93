/**
 * The activity service as one request sees it: a viewer, batched lookups (DataLoaders) and the
 * sources it already resolved. A graph face (GraphQL) asks it for a project, then for that
 * project's events, without resolving the project twice and without holding store rows.
 */
import DataLoader from 'dataloader';
import { NotFoundError } from '../../domain/errors.js';
import type { EventFilter } from '../../domain/filters.js';
import {
  type Viewer,
  canReadConfidential,
  canReadMergeRequests,
  canReadPersonalSnippet,
} from '../../domain/visibility.js';
import type { Store } from '../../store/store.js';
import type {
  ActivityService,
  ActivitySource,
  Mark,
  ResolvedProject,
  WindowListing,
} from './activity.js';
import type { KeysetWindow } from './event-listing.js';
import { type EventTarget, type TargetRef, lookUpTargets } from './event-targets.js';
import type { EventView } from './event-views.js';
import type { ProjectView, UserView } from '../views.js';

export type { EventTarget } from './event-targets.js';

/** A source as a graph names it: the viewer's events, a user's or a project's, by id. */
export type ReaderSource =
  | { kind: 'viewer'; scope?: string | undefined }
  | { kind: 'user'; id: number }
  | { kind: 'project'; id: number };

/** A target, and (for an event's) the project it must be in. */
type Ref = TargetRef & { projectId?: number };

export class ActivityReader {
  /** Users this request already looked up, by id. */
  private readonly users = new Map<number, UserView>();
  /** Projects resolved for this viewer (readability and access level), by id or path. */
  private readonly projects = new Map<string, ResolvedProject>();
  /** Targets (and users) by id, looked up together across the request. */
  private readonly targets: DataLoader<Ref, EventTarget | null, string>;

  /**
   * `marks`, when given, receives the mark of each listing read and of the head on a read by id,
   * for the response cache; all else it reads moves the listing version, which the cache checks.
   */
  constructor(
    private readonly activity: ActivityService,
    store: Store,
    readonly viewer: Viewer | null,
    self: UserView | null,
    private readonly marks: Mark[] | null = null,
  ) {
    this.targets = new DataLoader(
      async (refs) => {
        const found = await lookUpTargets(store, refs);
        return refs.map((ref) => found.target(ref, ref.projectId));
      },
      { cacheKeyFn: (ref) => `${ref.targetType}:${ref.targetId}:${ref.projectId ?? ''}` },
    );
    if (self) this.users.set(self.id, self);
  }

  /** A user by id or username; NOT_FOUND when there is none. */
  async user(idOrUsername: string): Promise<UserView> {
    const user = await this.activity.findUser(idOrUsername);
    this.users.set(user.id, user);
    return user;
  }

  /** A user by id, looked up with the request's targets; null when there is none. */
  async userById(id: number): Promise<UserView | null> {
    const known = this.users.get(id);
    if (known) return known;
    const target = await this.targets.load({ targetType: 'User', targetId: id });
    return target?.type === 'User' ? target.user : null;
  }

  /** A project by id or full path, readable by the viewer; NOT_FOUND otherwise. */
  async project(idOrPath: string): Promise<ProjectView> {
    return (await this.resolveProject(idOrPath)).project;
  }

  /** Like `project`, but null instead of NOT_FOUND (global-id lookups). */
  async projectOrNull(id: number): Promise<ProjectView | null> {
    return this.project(String(id)).catch(nullIfNotFound);
  }

  private async resolveProject(idOrPath: string): Promise<ResolvedProject> {
    const known = this.projects.get(idOrPath);
    if (known) return known;
    const resolved = await this.activity.findProject(idOrPath, this.viewer);
    this.projects.set(idOrPath, resolved);
    this.projects.set(String(resolved.project.id), resolved);
    return resolved;
  }

  /**
   * One keyset window of a source's events the viewer may see (the activity service's `read`,
   * with the sources this request resolved already); NOT_FOUND for an unreadable project.
   */
  async events(
    source: ReaderSource,
    filter: EventFilter,
    window: KeysetWindow,
  ): Promise<WindowListing> {
    const { viewer } = this;
    const answer = await this.activity.read({
      source: await this.found(source),
      filter,
      page: window,
      viewer,
      validators: this.marks ? { ifNoneMatch: undefined, vary: [] } : undefined,
    });
    if (answer.notModified) throw new Error('no tag was offered');
    if (this.marks && answer.mark) this.marks.push(answer.mark);
    return answer.page;
  }

  private async found(source: ReaderSource): Promise<ActivitySource> {
    switch (source.kind) {
      case 'viewer':
        return source;
      case 'user': {
        const user = this.users.get(source.id) ?? (await this.user(String(source.id)));
        return { kind: 'user', user };
      }
      case 'project':
        return { kind: 'project', project: await this.resolveProject(String(source.id)) };
    }
  }

  /** One event by id under a listing's visibility rules; null when missing or hidden. */
  async event(id: number): Promise<EventView | null> {
    // Outside any listing: the answer may change with any append.
    if (this.marks) this.marks.push(await this.activity.versionMark(true));
    return this.activity.findEvent(id, this.viewer);
  }

  /**
   * An issue, merge request, milestone, note or snippet by id, under the rules of the events that
   * show it (domain/visibility). Null when missing or hidden.
   */
  async content(
    type: 'Issue' | 'MergeRequest' | 'Milestone' | 'Note' | 'Snippet',
    id: number,
  ): Promise<EventTarget | null> {
    const { viewer } = this;
    const target = await this.targets.load({ targetType: type, targetId: id });
    if (target?.projectId == null) {
      const personal = target?.type === 'Snippet' && canReadPersonalSnippet(target.snippet, viewer);
      return personal ? target : null;
    }
    const resolved = await this.resolveProject(String(target.projectId)).catch(nullIfNotFound);
    if (!resolved) return null;
    const { project, accessLevel } = resolved;
    const on = target.type === 'Note' ? target.note.noteableType : target.type;
    const issue = on === 'Issue' ? await this.issueOf(target) : null;
    if (issue?.confidential && !canReadConfidential(issue, viewer, accessLevel)) return null;
    if (on === 'MergeRequest' && !canReadMergeRequests(project.visibility, viewer, accessLevel)) {
      return null;
    }
    return target;
  }

  /** An issue target's issue, or the one a note target is on. */
  private async issueOf(target: EventTarget) {
    if (target.type === 'Issue') return target.issue;
    if (target.type !== 'Note') return null;
    const issue = await this.targets.load({
      targetType: 'Issue',
      targetId: target.note.noteableId,
    });
    return issue?.type === 'Issue' ? issue.issue : null;
  }

  /**
   * What an event is about; null if not modelled, gone, or in another project than the event's
   * (GitLab shows a deleted target as null, never an object that took its id).
   */
  target(event: { projectId: number } & TargetRef): Promise<EventTarget | null> {
    const { targetType, targetId, projectId } = event;
    return this.targets.load({ targetType, targetId, projectId });
  }
}

function nullIfNotFound(error: unknown): null {
  if (error instanceof NotFoundError) return null;
  throw error;
}
