/**
 * Milestones: create ("created"), close ("closed"), activate ("reopened"), delete ("destroyed").
 * Managing them needs Reporter (GitLab's `admin_milestone`); reading needs the project.
 */
import { InvalidRecordError, NotFoundError } from '../../domain/errors.js';
import {
  type FieldErrors,
  type MilestoneStateEvent,
  addError,
  checkDescription,
  checkTitle,
  hasErrors,
} from '../../domain/content-rules.js';
import type { MilestoneRow } from '../../store/schema.js';
import { type MilestoneView, milestoneView } from '../views.js';
import { Ops, type ProjectAccess } from './context.js';
import type { Page } from './members.js';
import { isRowId } from '../../domain/ids.js';

export interface NewMilestone {
  title: string;
  description?: string | undefined;
  dueDate?: string | null | undefined;
  startDate?: string | null | undefined;
}

export interface MilestoneChanges extends Partial<NewMilestone> {
  stateEvent?: MilestoneStateEvent | undefined;
}

export interface MilestoneListQuery extends Page {
  state?: 'active' | 'closed' | undefined;
  iids?: number[] | undefined;
  title?: string | undefined;
}

export class MilestoneOps extends Ops {
  async create(idOrPath: string, input: NewMilestone): Promise<MilestoneView> {
    const access = await this.project(idOrPath);
    this.require(access, 'admin_milestone');
    await this.validate(access, input, null);
    const row = await this.store.milestones.create({
      project_id: access.project.id,
      title: input.title,
      description: input.description ?? '',
      state: 'active',
      due_date: input.dueDate ?? null,
      start_date: input.startDate ?? null,
      created_at: this.now,
      updated_at: this.now,
    });
    await this.event(row, 'created');
    return milestoneView(row);
  }

  async get(idOrPath: string, id: number): Promise<MilestoneView> {
    const access = await this.project(idOrPath);
    return milestoneView(await this.find(access, id));
  }

  async list(
    idOrPath: string,
    q: MilestoneListQuery,
  ): Promise<{ milestones: MilestoneView[]; total: number }> {
    const access = await this.project(idOrPath);
    const query = { projectId: access.project.id, ...q };
    const [rows, total] = await Promise.all([
      this.store.milestones.list(query),
      this.store.milestones.count(query),
    ]);
    return { milestones: rows.map(milestoneView), total };
  }

  async update(idOrPath: string, id: number, changes: MilestoneChanges): Promise<MilestoneView> {
    const access = await this.project(idOrPath);
    const row = await this.find(access, id);
    this.require(access, 'admin_milestone');
    await this.validate(access, changes, row);
    const patch: Parameters<typeof this.store.milestones.update>[1] = {};
    if (changes.title !== undefined) patch.title = changes.title;
    if (changes.description !== undefined) patch.description = changes.description;
    if (changes.dueDate !== undefined) patch.due_date = changes.dueDate;
    if (changes.startDate !== undefined) patch.start_date = changes.startDate;
    const transition =
      changes.stateEvent === 'close' && row.state === 'active'
        ? 'closed'
        : changes.stateEvent === 'activate' && row.state === 'closed'
          ? 'reopened'
          : null;
    if (transition) patch.state = transition === 'closed' ? 'closed' : 'active';
    if (Object.keys(patch).length === 0) return milestoneView(row);
    const updated = await this.saveChange(this.store.milestones, row, patch, transition);
    if (transition) await this.event(updated, transition);
    return milestoneView(updated);
  }

  /** Deleting writes "destroyed"; issues and merge requests on it lose their milestone. */
  async delete(idOrPath: string, id: number): Promise<void> {
    const access = await this.project(idOrPath);
    const row = await this.find(access, id);
    this.require(access, 'admin_milestone');
    // Of parallel deletes one deletes it (and writes "destroyed"); the others find it gone.
    if (!(await this.store.milestones.delete(row.id))) throw new NotFoundError('Milestone');
    await this.store.issues.clearMilestone(row.id);
    await this.store.mergeRequests.clearMilestone(row.id);
    await this.event(row, 'destroyed');
  }

  private async find(access: ProjectAccess, id: number): Promise<MilestoneRow> {
    const row = isRowId(id)
      ? await this.store.milestones.inProject(access.project.id, id, this.writing)
      : undefined;
    if (!row) throw new NotFoundError('Milestone');
    return row;
  }

  private async validate(
    access: ProjectAccess,
    input: Partial<NewMilestone>,
    current: MilestoneRow | null,
  ): Promise<void> {
    const errors: FieldErrors = {};
    if (input.title !== undefined || !current) checkTitle(errors, input.title ?? '');
    if (input.description !== undefined) checkDescription(errors, input.description);
    const start = input.startDate !== undefined ? input.startDate : (current?.start_date ?? null);
    const due = input.dueDate !== undefined ? input.dueDate : (current?.due_date ?? null);
    if (start !== null && due !== null && due < start) {
      addError(errors, 'due_date', 'must be greater than start date');
    }
    if (input.title !== undefined && input.title !== current?.title && !errors.title) {
      const same = await this.store.milestones.byTitle(access.project.id, input.title);
      if (same)
        addError(errors, 'title', 'already being used for another group or project milestone.');
    }
    if (hasErrors(errors)) throw new InvalidRecordError(errors);
  }

  private async event(
    row: MilestoneRow,
    action: 'created' | 'closed' | 'reopened' | 'destroyed',
  ): Promise<void> {
    await this.recorder.record({
      projectId: row.project_id,
      authorId: this.actor.user.id,
      action,
      targetType: 'Milestone',
      targetId: row.id,
    });
  }
}
