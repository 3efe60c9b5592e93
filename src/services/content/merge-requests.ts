/**
 * Merge requests: open, read, list, edit, close, reopen, approve and merge, each state change with
 * GitLab's event ("created", "closed", "reopened", "approved", "merged"). pulsegate keeps no
 * repository contents, so a merge request is mergeable while it is open.
 */
import {
  ConflictError,
  ForbiddenError,
  InvalidRecordError,
  NotAllowedError,
  NotFoundError,
  UnauthenticatedError,
  UnprocessableError,
} from '../../domain/errors.js';
import { can, canApprove, canUpdateTracked } from '../../domain/permissions.js';
import {
  type FieldErrors,
  trackedTransition,
  addError,
  checkDescription,
  checkTitle,
  hasErrors,
} from '../../domain/content-rules.js';
import { canReadMergeRequests } from '../../domain/visibility.js';
import type { Visibility } from '../../domain/vocabulary.js';
import type { MergeRequestRow } from '../../store/schema.js';
import {
  type MergeRequestView,
  type MilestoneView,
  type ProjectView,
  type UserView,
} from '../views.js';
import { Ops, type ProjectAccess } from './context.js';
import { mergeRequestDetails } from './issuable-details.js';
import type { IssueListQuery, TrackedChanges } from './issues.js';
import { isRowId } from '../../domain/ids.js';

export interface MergeRequestDetail {
  mergeRequest: MergeRequestView;
  project: ProjectView;
  author: UserView | null;
  closedBy: UserView | null;
  mergedBy: UserView | null;
  milestone: MilestoneView | null;
  userNotesCount: number;
}

export interface Approvals {
  detail: MergeRequestDetail;
  approvedBy: { user: UserView; approvedAt: number }[];
  /** Whether the reader has approved it, and could approve it now. */
  userHasApproved: boolean;
  userCanApprove: boolean;
}

export interface NewMergeRequest {
  sourceBranch: string;
  targetBranch: string;
  title: string;
  description?: string | undefined;
  milestoneId?: number | null | undefined;
}

export interface MergeRequestChanges extends TrackedChanges {
  targetBranch?: string | undefined;
}

export interface MergeRequestListQuery extends Omit<IssueListQuery, 'state'> {
  state?: 'opened' | 'closed' | 'merged' | 'locked' | undefined;
}

/** Git's rules for a branch name (git check-ref-format), enough to refuse what git would. */
function validBranch(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 255 &&
    name !== '@' &&
    !/[\p{Cc} ~^:?*[\\]/u.test(name) &&
    !/^\/|\/\/|\/\.|\.\.|@\{|\.lock$|\/$|\.$/.test(name)
  );
}

export class MergeRequestOps extends Ops {
  async create(idOrPath: string, input: NewMergeRequest): Promise<MergeRequestDetail> {
    const access = await this.project(idOrPath);
    this.require(access, 'create_merge_request');
    const errors: FieldErrors = {};
    checkTitle(errors, input.title);
    checkDescription(errors, input.description ?? '');
    for (const [field, value] of [
      ['source_branch', input.sourceBranch],
      ['target_branch', input.targetBranch],
    ] as const) {
      if (!validBranch(value)) addError(errors, field, 'is invalid');
    }
    if (hasErrors(errors)) throw new InvalidRecordError(errors);
    if (input.sourceBranch === input.targetBranch) {
      // GitLab renders this one validation as 422 rather than 400.
      throw new UnprocessableError("You can't use same project/branch for source and target");
    }
    await this.onlyOpen(access, input.sourceBranch, input.targetBranch, null);
    const milestoneId = await this.milestoneIn(access, input.milestoneId);
    const row = await this.store.mergeRequests.create({
      project_id: access.project.id,
      title: input.title,
      description: input.description ?? '',
      author_id: this.actor.user.id,
      state: 'opened',
      source_branch: input.sourceBranch,
      target_branch: input.targetBranch,
      created_at: this.now,
      updated_at: this.now,
      milestone_id: milestoneId,
      closed_at: null,
      closed_by_id: null,
      merged_at: null,
      merged_by_id: null,
    });
    this.readAccess({ kind: 'merge_request', projectId: row.project_id, iid: row.iid });
    await this.event(row, 'created');
    return (await this.details(access, [row]))[0]!;
  }

  /** GitLab: 409 naming the merge request already open from `source` into `target`. */
  private async onlyOpen(
    access: ProjectAccess,
    source: string,
    target: string,
    except: number | null,
  ): Promise<void> {
    const existing = await this.store.mergeRequests.openBetween(
      access.project.id,
      source,
      target,
      except,
    );
    if (existing) {
      throw new ConflictError(
        `Another open merge request already exists for this source branch: !${existing.iid}`,
        true,
      );
    }
  }

  async get(idOrPath: string, iid: number): Promise<MergeRequestDetail> {
    const access = await this.project(idOrPath);
    return (await this.details(access, [await this.find(access, iid)]))[0]!;
  }

  async list(
    idOrPath: string,
    q: MergeRequestListQuery,
  ): Promise<{ mergeRequests: MergeRequestDetail[]; total: number }> {
    const access = await this.project(idOrPath);
    // GitLab authorizes the list on the project: 403 where merge requests are hidden from the reader.
    if (!this.readsMergeRequests(access)) throw new ForbiddenError();
    const query = { projectId: access.project.id, ...q };
    const [rows, total] = await Promise.all([
      this.store.mergeRequests.list(query),
      this.store.mergeRequests.count(query),
    ]);
    return { mergeRequests: await this.details(access, rows), total };
  }

  async update(
    idOrPath: string,
    iid: number,
    changes: MergeRequestChanges,
  ): Promise<MergeRequestDetail> {
    const access = await this.project(idOrPath);
    const row = await this.find(access, iid);
    if (
      !canUpdateTracked(this.policy(access), { authorId: row.author_id }, 'update_merge_request')
    ) {
      throw new ForbiddenError();
    }
    const errors: FieldErrors = {};
    if (changes.title !== undefined) checkTitle(errors, changes.title);
    if (changes.description !== undefined) checkDescription(errors, changes.description);
    if (changes.targetBranch !== undefined && !validBranch(changes.targetBranch))
      addError(errors, 'target_branch', 'is invalid');
    if (hasErrors(errors)) throw new InvalidRecordError(errors);
    const patch: Parameters<typeof this.store.mergeRequests.update>[1] = {};
    if (changes.title !== undefined) patch.title = changes.title;
    if (changes.description !== undefined) patch.description = changes.description;
    if (changes.targetBranch !== undefined) patch.target_branch = changes.targetBranch;
    if (changes.milestoneId !== undefined)
      patch.milestone_id = await this.milestoneIn(access, changes.milestoneId);
    const transition = trackedTransition(changes.stateEvent, row.state);
    Object.assign(patch, this.transitionColumns(transition));
    if (Object.keys(patch).length === 0) return (await this.details(access, [row]))[0]!;
    // Reopening, or retargeting an open one, may meet another open on the same branches (those
    // imported without branches are not compared, as the unique index does not).
    const opened = transition === 'reopened' || (row.state === 'opened' && !transition);
    if (opened && (transition || patch.target_branch !== undefined) && row.source_branch !== '') {
      await this.onlyOpen(
        access,
        row.source_branch,
        patch.target_branch ?? row.target_branch,
        row.id,
      );
    }
    const updated = await this.saveChange(this.store.mergeRequests, row, patch, transition);
    if (transition) await this.event(updated, transition);
    return (await this.details(access, [updated]))[0]!;
  }

  /**
   * `PUT …/merge`: 401 for those who may not merge (GitLab's answer), 405 when the merge request
   * is not open.
   */
  async merge(idOrPath: string, iid: number): Promise<MergeRequestDetail> {
    const access = await this.project(idOrPath);
    const row = await this.find(access, iid);
    if (!can(this.policy(access), 'merge')) throw new UnauthenticatedError();
    if (row.state !== 'opened') throw new NotAllowedError();
    // Only an open merge request merges: a parallel merge or close that got there first leaves
    // this one the answer a merge of a merged (or closed) merge request gets.
    const updated = await this.store.mergeRequests.updateInState(row.id, 'opened', {
      state: 'merged',
      merged_at: this.now,
      merged_by_id: this.actor.user.id,
      updated_at: this.now,
    });
    if (!updated) throw new NotAllowedError();
    await this.event(updated, 'merged');
    return (await this.details(access, [updated]))[0]!;
  }

  /** `POST …/approve`: once per member who may update it (GitLab CE); 401 otherwise. */
  async approve(idOrPath: string, iid: number): Promise<Approvals> {
    const access = await this.project(idOrPath);
    const row = await this.find(access, iid);
    const policy = this.policy(access);
    const approvers = await this.store.mergeRequests.approvers(row.id);
    const already = approvers.some((a) => a.user_id === this.actor.user.id);
    if (row.state !== 'opened' || !canApprove(policy, already)) throw new UnauthenticatedError();
    if (!(await this.store.mergeRequests.approve(row.id, this.actor.user.id, this.now))) {
      throw new UnauthenticatedError();
    }
    await this.event(row, 'approved');
    return this.approvals(access, row);
  }

  async approvalState(idOrPath: string, iid: number): Promise<Approvals> {
    const access = await this.project(idOrPath);
    return this.approvals(access, await this.find(access, iid));
  }

  private async approvals(access: ProjectAccess, row: MergeRequestRow): Promise<Approvals> {
    const approvers = await this.store.mergeRequests.approvers(row.id);
    const users = await this.users(approvers.map((a) => a.user_id));
    const me = this.context.actor?.user.id ?? null;
    const userHasApproved = approvers.some((a) => a.user_id === me);
    return {
      detail: (await this.details(access, [row]))[0]!,
      approvedBy: approvers.flatMap((a) => {
        const user = users.get(a.user_id);
        return user ? [{ user, approvedAt: a.created_at }] : [];
      }),
      userHasApproved,
      userCanApprove:
        access.policy !== null &&
        row.state === 'opened' &&
        canApprove(access.policy, userHasApproved),
    };
  }

  /** The merge request, if this reader may see it; unknown and hidden ones are both 404. */
  async find(access: ProjectAccess, iid: number): Promise<MergeRequestRow> {
    const row =
      isRowId(iid) && this.readsMergeRequests(access)
        ? await this.store.mergeRequests.byIid(access.project.id, iid, this.writing)
        : undefined;
    if (!row) throw new NotFoundError('Merge Request');
    this.readAccess({ kind: 'merge_request', projectId: row.project_id, iid: row.iid });
    return row;
  }

  /** `read_merge_request` (domain/visibility): in a private project, Reporter and up. */
  private readsMergeRequests(access: ProjectAccess): boolean {
    const viewer = this.context.actor?.viewer ?? null;
    return canReadMergeRequests(
      access.project.visibility as Visibility,
      viewer,
      access.accessLevel,
    );
  }

  private async event(
    row: MergeRequestRow,
    action: 'created' | 'closed' | 'reopened' | 'merged' | 'approved',
  ): Promise<void> {
    await this.recorder.record({
      projectId: row.project_id,
      authorId: this.actor.user.id,
      action,
      targetType: 'MergeRequest',
      targetId: row.id,
    });
  }

  private async details(
    access: ProjectAccess,
    rows: MergeRequestRow[],
  ): Promise<MergeRequestDetail[]> {
    return mergeRequestDetails(this.store, rows, access.project);
  }
}
