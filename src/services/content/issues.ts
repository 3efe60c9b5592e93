/**
 * Issues: open, read, list, edit, close and reopen. Opening writes "created"; closing and
 * reopening write "closed"/"reopened"; edits of title or description write nothing (GitLab).
 * Confidential issues exist only for those who may read them (404 to everyone else).
 */
import { ForbiddenError, InvalidRecordError, NotFoundError } from '../../domain/errors.js';
import { canUpdateTracked, issueMetadataKept } from '../../domain/permissions.js';
import {
  type FieldErrors,
  type TrackedStateEvent,
  trackedTransition,
  checkDescription,
  checkTitle,
  hasErrors,
} from '../../domain/content-rules.js';
import { canReadConfidential } from '../../domain/visibility.js';
import type { IssueRow } from '../../store/schema.js';
import {
  type IssueView,
  type MilestoneView,
  type ProjectView,
  type UserView,
  issueView,
  milestoneView,
  projectView,
} from '../views.js';
import { Ops, type ProjectAccess } from './context.js';
import { issueDetails } from './issuable-details.js';
import type { Page } from './members.js';
import { isRowId } from '../../domain/ids.js';

export interface IssueDetail {
  issue: IssueView;
  project: ProjectView;
  author: UserView | null;
  closedBy: UserView | null;
  milestone: MilestoneView | null;
  userNotesCount: number;
}

export interface NewIssue {
  title: string;
  description?: string | undefined;
  confidential?: boolean | undefined;
  milestoneId?: number | null | undefined;
}

/** What an edit of an issue or a merge request may change: only what is given. */
export interface TrackedChanges {
  title?: string | undefined;
  description?: string | undefined;
  milestoneId?: number | null | undefined;
  stateEvent?: TrackedStateEvent | undefined;
}

export interface IssueChanges extends TrackedChanges {
  confidential?: boolean | undefined;
}

export interface IssueListQuery extends Page {
  state?: 'opened' | 'closed' | undefined;
  iids?: number[] | undefined;
  sort: 'asc' | 'desc';
}

export class IssueOps extends Ops {
  async create(idOrPath: string, input: NewIssue): Promise<IssueDetail> {
    const access = await this.project(idOrPath);
    const policy = this.require(access, 'create_issue');
    const errors: FieldErrors = {};
    checkTitle(errors, input.title);
    checkDescription(errors, input.description ?? '');
    if (hasErrors(errors)) throw new InvalidRecordError(errors);
    const milestoneId = issueMetadataKept(policy)
      ? await this.milestoneIn(access, input.milestoneId)
      : null;
    const milestone = milestoneId === null ? null : await this.milestoneView(milestoneId);
    const row = await this.store.issues.create({
      project_id: access.project.id,
      title: input.title,
      description: input.description ?? '',
      confidential: input.confidential ? 1 : 0,
      author_id: this.actor.user.id,
      state: 'opened',
      created_at: this.now,
      updated_at: this.now,
      milestone_id: milestoneId,
      closed_at: null,
      closed_by_id: null,
    });
    this.readAccess({ kind: 'issue', projectId: row.project_id, iid: row.iid });
    await this.recorder.record({
      projectId: row.project_id,
      authorId: row.author_id,
      action: 'created',
      targetType: 'Issue',
      targetId: row.id,
      issueId: row.id,
    });
    // Everything the answer needs is known: no queries while the project's iid lock is held.
    return {
      issue: issueView(row),
      project: projectView(access.project),
      author: this.actor.user,
      closedBy: null,
      milestone,
      userNotesCount: 0,
    };
  }

  private async milestoneView(id: number): Promise<MilestoneView | null> {
    const [row] = await this.store.content.milestones([id]);
    return row ? milestoneView(row) : null;
  }

  async get(idOrPath: string, iid: number): Promise<IssueDetail> {
    const access = await this.project(idOrPath);
    const row = await this.readable(access, iid);
    return (await this.details(access, [row]))[0]!;
  }

  async list(
    idOrPath: string,
    q: IssueListQuery,
  ): Promise<{ issues: IssueDetail[]; total: number }> {
    const access = await this.project(idOrPath);
    const viewer = this.context.actor?.viewer ?? null;
    const query = {
      projectId: access.project.id,
      state: q.state,
      iids: q.iids,
      sort: q.sort,
      offset: q.offset,
      limit: q.limit,
      confidentialVisibleTo: {
        userId: viewer?.userId ?? null,
        all: canReadConfidential({ authorId: -1 }, viewer, access.accessLevel),
      },
    };
    const [rows, total] = await Promise.all([
      this.store.issues.list(query),
      this.store.issues.count(query),
    ]);
    return { issues: await this.details(access, rows), total };
  }

  async update(idOrPath: string, iid: number, changes: IssueChanges): Promise<IssueDetail> {
    const access = await this.project(idOrPath);
    const row = await this.readable(access, iid);
    const policy = this.policy(access);
    if (!canUpdateTracked(policy, { authorId: row.author_id }, 'update_issue')) {
      throw new ForbiddenError();
    }
    const errors: FieldErrors = {};
    if (changes.title !== undefined) checkTitle(errors, changes.title);
    if (changes.description !== undefined) checkDescription(errors, changes.description);
    if (hasErrors(errors)) throw new InvalidRecordError(errors);
    const patch: Parameters<typeof this.store.issues.update>[1] = {};
    if (changes.title !== undefined) patch.title = changes.title;
    if (changes.description !== undefined) patch.description = changes.description;
    if (changes.confidential !== undefined) patch.confidential = changes.confidential ? 1 : 0;
    if (changes.milestoneId !== undefined && issueMetadataKept(policy))
      patch.milestone_id = await this.milestoneIn(access, changes.milestoneId);
    const transition = trackedTransition(changes.stateEvent, row.state);
    Object.assign(patch, this.transitionColumns(transition));
    if (Object.keys(patch).length === 0) return (await this.details(access, [row]))[0]!;
    const updated = await this.saveChange(this.store.issues, row, patch, transition);
    if (transition) {
      await this.recorder.record({
        projectId: updated.project_id,
        authorId: this.actor.user.id,
        action: transition,
        targetType: 'Issue',
        targetId: updated.id,
        issueId: updated.id,
      });
    }
    return (await this.details(access, [updated]))[0]!;
  }

  /** The issue, if this reader may see it; unknown and hidden issues are both 404. */
  async readable(access: ProjectAccess, iid: number): Promise<IssueRow> {
    const row = isRowId(iid)
      ? await this.store.issues.byIid(access.project.id, iid, this.writing)
      : undefined;
    const viewer = this.context.actor?.viewer ?? null;
    if (
      !row ||
      (row.confidential === 1 &&
        !canReadConfidential({ authorId: row.author_id }, viewer, access.accessLevel))
    ) {
      throw new NotFoundError('Issue');
    }
    this.readAccess({ kind: 'issue', projectId: row.project_id, iid: row.iid });
    return row;
  }

  private async details(access: ProjectAccess, rows: IssueRow[]): Promise<IssueDetail[]> {
    return issueDetails(this.store, rows, access.project);
  }
}
