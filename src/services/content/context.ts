/**
 * What every content operation works with: the store (the transaction's, for writes), the time of
 * the write, the actor, and the event recorder (null when only reading).
 */
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../../domain/errors.js';
import { type Ability, type ProjectActor, can } from '../../domain/permissions.js';
import { membershipDay } from '../../domain/membership-expiry.js';
import type { Visibility } from '../../domain/vocabulary.js';
import type { ProjectRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { Viewer } from '../../domain/visibility.js';
import { type UserView, userView } from '../views.js';
import type { EventRecorder } from './recorder.js';
import { readableProject } from '../project-access.js';

/**
 * Thrown inside a write whose conditional change found the row already changed by a parallel
 * write: `ContentService` runs the write once more, and it answers for the state it then finds.
 */
export class RaceLost extends Error {}

/** Who is writing: a signed-in user (the token's owner). */
export interface Actor {
  user: UserView;
  viewer: Viewer;
}

/**
 * Something a write found the actor may read before acting on it: its project, and the issue or
 * merge request it read or made. A retry with the same `Idempotency-Key` checks them again before
 * it gets the stored answer (ContentService.writeOnce).
 */
export type AccessSubject =
  | { kind: 'project'; projectId: number }
  | { kind: 'issue' | 'merge_request'; projectId: number; iid: number };

export interface OpsContext {
  store: Store;
  now: number;
  actor: Actor | null;
  recorder: EventRecorder | null;
  /** Where a write that may be replayed notes what it read access to (`AccessSubject`). */
  subjects?: AccessSubject[];
}

/** A project the actor can read, with what they are in it. */
export interface ProjectAccess {
  project: ProjectRow;
  accessLevel: number | null;
  /** The actor as the policy sees them (null when anonymous). */
  policy: ProjectActor | null;
}

/** A store of rows that change state (issues, merge requests, milestones). */
interface ChangeableRows<R, P> {
  update(id: number, patch: P): Promise<R>;
  updateInState(id: number, state: string, patch: P): Promise<R | undefined>;
}

export class Ops {
  constructor(readonly context: OpsContext) {}

  protected get store(): Store {
    return this.context.store;
  }

  protected get now(): number {
    return this.context.now;
  }

  /** The signed-in actor; anonymous callers get 401 (faces normally refuse them earlier). */
  protected get actor(): Actor {
    const { actor } = this.context;
    if (!actor) throw new UnauthenticatedError();
    return actor;
  }

  /** In a write: rows read to decide a change are locked until it commits (store `lock`). */
  protected get writing(): boolean {
    return this.context.recorder !== null;
  }

  protected get recorder(): EventRecorder {
    const { recorder } = this.context;
    if (!recorder) throw new Error('a write outside ContentService.write');
    return recorder;
  }

  /**
   * `:id` of `/projects/:id`: a number or a full path. Unknown and unreadable projects are both
   * `404 Project Not Found`, as GitLab answers.
   */
  async project(idOrPath: string | number): Promise<ProjectAccess> {
    const viewer = this.context.actor?.viewer ?? null;
    const day = membershipDay(this.now);
    const { project, accessLevel } = await readableProject(this.store, idOrPath, viewer, day);
    const policy = viewer
      ? { viewer, visibility: project.visibility as Visibility, accessLevel }
      : null;
    this.readAccess({ kind: 'project', projectId: project.id });
    return { project, accessLevel, policy };
  }

  /** Notes a subject whose read access this write relied on (see `AccessSubject`). */
  protected readAccess(subject: AccessSubject): void {
    const { subjects } = this.context;
    if (!subjects) return;
    const same = (s: AccessSubject) =>
      s.kind === subject.kind &&
      s.projectId === subject.projectId &&
      ('iid' in s ? s.iid : 0) === ('iid' in subject ? subject.iid : 0);
    if (!subjects.some(same)) subjects.push(subject);
  }

  /** The project, when the actor has `ability` in it; else 403 (or 404 when unreadable). */
  async projectFor(idOrPath: string | number, ability: Ability): Promise<ProjectAccess> {
    const access = await this.project(idOrPath);
    this.require(access, ability);
    return access;
  }

  /**
   * A `milestone_id` parameter: null (or 0, GitLab's "none") clears it; otherwise the milestone
   * must be this project's (404 Milestone Not Found).
   */
  protected async milestoneIn(
    access: ProjectAccess,
    milestoneId: number | null | undefined,
  ): Promise<number | null> {
    if (milestoneId === undefined || milestoneId === null || milestoneId === 0) return null;
    // Locked like a milestone being deleted: the issue never keeps one that a parallel delete
    // removed (the delete then waits, and clears it from this issue too).
    const milestone = await this.store.milestones.inProject(
      access.project.id,
      milestoneId,
      this.writing,
    );
    if (!milestone) throw new NotFoundError('Milestone');
    return milestone.id;
  }

  /** The columns a close or reopen sets on an issue or merge request (closed by the actor). */
  protected transitionColumns(transition: 'closed' | 'reopened' | null) {
    if (transition === 'closed')
      return { state: 'closed', closed_at: this.now, closed_by_id: this.actor.user.id };
    if (transition === 'reopened') return { state: 'opened', closed_at: null, closed_by_id: null };
    return {};
  }

  /**
   * Saves a change to an issue, merge request or milestone, stamped now. A state change is
   * conditional on the state it was decided from: of two parallel closes, one closes (and writes
   * its event); the other finds the row moved, and `ContentService` runs it again (`RaceLost`).
   */
  protected async saveChange<R, P extends { updated_at?: number }>(
    rows: ChangeableRows<R, P>,
    row: { id: number; state: string },
    patch: P,
    transition: string | null,
  ): Promise<R> {
    patch.updated_at = this.now;
    const updated = transition
      ? await rows.updateInState(row.id, row.state, patch)
      : await rows.update(row.id, patch);
    if (!updated) throw new RaceLost();
    return updated;
  }

  /** Users by id, as views (one query for the batch). */
  protected async users(ids: Iterable<number | null>): Promise<Map<number, UserView>> {
    const wanted = [...new Set([...ids].filter((id): id is number => id !== null))];
    const rows = await this.store.users.byIds(wanted);
    return new Map(rows.map((row) => [row.id, userView(row)]));
  }

  protected require(access: ProjectAccess, ability: Ability): ProjectActor {
    const policy = this.policy(access);
    if (!can(policy, ability)) throw new ForbiddenError();
    return policy;
  }

  /** The signed-in actor as the policy sees them in this project. */
  protected policy(access: ProjectAccess): ProjectActor {
    if (!access.policy) throw new UnauthenticatedError();
    return access.policy;
  }
}
