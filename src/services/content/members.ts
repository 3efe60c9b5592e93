/**
 * Project members. Adding one writes "joined" and removing one "left", both authored by the
 * member (GitLab's ProjectMember hooks); a membership that reaches its expiry writes "expired".
 * Like every project-level event in GitLab (EventCreateService#join_project), they have no
 * target: the project is the event's project.
 */
import {
  ConflictError,
  ForbiddenError,
  InvalidRecordError,
  NotFoundError,
} from '../../domain/errors.js';
import { canGrant, canRemoveMember, mayEndOwnership } from '../../domain/permissions.js';
import { membershipDay } from '../../domain/membership-expiry.js';
import { utcDay } from '../../domain/content-rules.js';
import { ACCESS_LEVELS, ACCESS_LEVEL_VALUES } from '../../domain/vocabulary.js';
import { isUniqueViolation } from '../../store/constraint-errors.js';
import type { MemberRow } from '../../store/schema.js';
import type { MemberView, UserView } from '../views.js';
import { Ops } from './context.js';

export interface NewMember {
  userId: number;
  accessLevel: number;
  /** YYYY-MM-DD (already a valid day) or null. */
  expiresAt: string | null;
}

export interface Page {
  offset: number;
  limit: number;
}

export class MemberOps extends Ops {
  async list(idOrPath: string, page: Page): Promise<{ members: MemberView[]; total: number }> {
    const access = await this.project(idOrPath);
    const id = access.project.id;
    const [rows, total] = await Promise.all([
      this.store.members.list(id, page.offset, page.limit),
      this.store.members.count(id),
    ]);
    return { members: await this.views(rows), total };
  }

  async get(idOrPath: string, userId: number): Promise<MemberView> {
    const access = await this.project(idOrPath);
    const row = await this.store.members.get(access.project.id, userId);
    if (!row) throw new NotFoundError('Member');
    return (await this.views([row]))[0]!;
  }

  async add(idOrPath: string, input: NewMember): Promise<MemberView> {
    const access = await this.project(idOrPath);
    const policy = this.require(access, 'read_member');
    if (!ACCESS_LEVEL_VALUES.includes(input.accessLevel)) {
      throw new InvalidRecordError({ access_level: ['is not included in the list'] });
    }
    if (input.expiresAt !== null && input.expiresAt < utcDay(this.now)) {
      throw new InvalidRecordError({ expires_at: ['cannot be a date in the past'] });
    }
    if (!canGrant(policy, input.accessLevel, null)) throw new ForbiddenError();
    const user = await this.store.users.byId(input.userId);
    if (!user) throw new NotFoundError('User');
    const projectId = access.project.id;
    if (await this.store.members.get(projectId, input.userId)) this.exists();
    const row: MemberRow = {
      project_id: projectId,
      user_id: input.userId,
      access_level: input.accessLevel,
      expires_at: input.expiresAt,
      created_at: this.now,
      created_by_id: this.actor.user.id,
    };
    try {
      await this.store.members.add(row);
    } catch (error) {
      if (isUniqueViolation(error)) this.exists();
      throw error;
    }
    await this.recorder.record({
      projectId,
      authorId: input.userId,
      action: 'joined',
      targetType: null,
      targetId: null,
    });
    return (await this.views([row]))[0]!;
  }

  async remove(idOrPath: string, userId: number): Promise<void> {
    const access = await this.project(idOrPath);
    if (!access.policy) throw new ForbiddenError();
    // Held to the commit: the membership and the project's other Owners are read as they stand.
    await this.store.members.lockProject(access.project.id);
    const row = await this.store.members.get(access.project.id, userId);
    if (!row) throw new NotFoundError('Member');
    if (!canRemoveMember(access.policy, { userId, accessLevel: row.access_level })) {
      throw new ForbiddenError();
    }
    await this.keepAnOwner(access.project, row);
    // Another request may have removed it meanwhile: then it is gone, and so is our event.
    if (!(await this.store.members.remove(access.project.id, userId))) {
      throw new NotFoundError('Member');
    }
    await this.recorder.record({
      projectId: access.project.id,
      authorId: userId,
      action: 'left',
      targetType: null,
      targetId: null,
    });
  }

  /**
   * Refuses (403) to end the last Owner's membership or the personal namespace owner's. The
   * caller holds the project's row from before the count to the commit, so two Owners removing
   * each other at once cannot both succeed.
   */
  private async keepAnOwner(
    project: { id: number; namespace: string },
    row: MemberRow,
  ): Promise<void> {
    if (row.access_level < ACCESS_LEVELS.owner) return;
    const user = await this.store.users.byId(row.user_id);
    const isNamespaceOwner =
      user !== undefined && user.username.toLowerCase() === project.namespace.toLowerCase();
    const others = await this.store.members.otherOwners(
      project.id,
      row.user_id,
      ACCESS_LEVELS.owner,
      membershipDay(this.now),
    );
    if (!mayEndOwnership({ accessLevel: row.access_level, isNamespaceOwner }, others)) {
      throw new ForbiddenError();
    }
  }

  /**
   * Ends memberships whose expiry day has passed (the periodic job): each one removed by exactly
   * one process, with its "expired" event in the same transaction.
   */
  async expireOne(row: MemberRow): Promise<boolean> {
    if (!(await this.store.members.removeExpired(row))) return false;
    await this.recorder.record({
      projectId: row.project_id,
      authorId: row.user_id,
      action: 'expired',
      targetType: null,
      targetId: null,
    });
    return true;
  }

  private exists(): never {
    throw new ConflictError('Member already exists');
  }

  private async views(rows: MemberRow[]): Promise<MemberView[]> {
    const users = await this.users(rows.flatMap((r) => [r.user_id, r.created_by_id]));
    return rows.flatMap((row) => {
      const user: UserView | undefined = users.get(row.user_id);
      if (!user) return [];
      return [
        {
          user,
          accessLevel: row.access_level,
          expiresAt: row.expires_at,
          createdAt: row.created_at,
          createdBy: row.created_by_id === null ? null : (users.get(row.created_by_id) ?? null),
        },
      ];
    });
  }
}
