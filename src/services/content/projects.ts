/** Creating and reading projects. */
import { ForbiddenError, InvalidRecordError } from '../../domain/errors.js';
import { canCreateProjectIn } from '../../domain/permissions.js';
import {
  type FieldErrors,
  addError,
  checkDescription,
  checkProjectName,
  checkProjectPath,
  hasErrors,
  pathFromName,
} from '../../domain/content-rules.js';
import { membershipDay } from '../../domain/membership-expiry.js';
import { ACCESS_LEVELS, type Visibility } from '../../domain/vocabulary.js';
import { isUniqueViolation } from '../../store/constraint-errors.js';
import { type ProjectView, projectView } from '../views.js';
import { Ops } from './context.js';

export interface NewProject {
  name?: string | undefined;
  path?: string | undefined;
  /** A namespace path; the actor's own (their username) when absent. */
  namespace?: string | undefined;
  description?: string | undefined;
  visibility?: Visibility | undefined;
  defaultBranch?: string | undefined;
}

/** A project with what the reader is in it. */
export interface ProjectDetail {
  project: ProjectView;
  accessLevel: number | null;
  /** How many users starred it (the entity's `star_count`). */
  starCount: number;
}

export class ProjectOps extends Ops {
  async get(idOrPath: string): Promise<ProjectDetail> {
    const { project, accessLevel } = await this.project(idOrPath);
    const stars = await this.store.stars.counts([project.id]);
    return { project: projectView(project), accessLevel, starCount: stars.get(project.id) ?? 0 };
  }

  /**
   * GitLab's `Projects::CreateService`: the creator becomes its Owner (no "joined" event for them)
   * and one "created" event is written for the project.
   */
  async create(input: NewProject): Promise<ProjectDetail> {
    const { user, viewer } = this.actor;
    const namespace = input.namespace ?? user.username;
    const owns =
      namespace.toLowerCase() !== user.username.toLowerCase() &&
      (await this.store.projects.hasLevelInNamespace(
        user.id,
        namespace,
        ACCESS_LEVELS.owner,
        membershipDay(this.now),
      ));
    if (!canCreateProjectIn({ ...viewer, username: user.username }, namespace, owns)) {
      throw new ForbiddenError('You are not allowed to create projects in this namespace.');
    }
    const name = input.name ?? input.path ?? '';
    const path = input.path ?? pathFromName(name);
    const errors: FieldErrors = {};
    checkProjectName(errors, name);
    checkProjectPath(errors, path);
    checkDescription(errors, input.description ?? '');
    if (hasErrors(errors)) throw new InvalidRecordError(errors);

    const fullPath = `${namespace}/${path}`;
    if (await this.store.projects.byFullPath(fullPath)) this.taken();
    let row;
    try {
      row = await this.store.projects.create({
        namespace,
        path,
        full_path: fullPath,
        name,
        description: input.description ?? '',
        visibility: input.visibility ?? 'private',
        creator_id: user.id,
        created_at: this.now,
        default_branch: input.defaultBranch ?? 'main',
        last_activity_at: this.now,
      });
    } catch (error) {
      // Two requests creating the same path at once: the unique index decides.
      if (isUniqueViolation(error)) this.taken();
      throw error;
    }
    await this.store.members.add({
      project_id: row.id,
      user_id: user.id,
      access_level: ACCESS_LEVELS.owner,
      expires_at: null,
      created_at: this.now,
      created_by_id: user.id,
    });
    // A personal namespace's owner owns every project in it, also one an admin made there; that
    // membership can never be removed (MemberOps.remove).
    const namespaceOwner =
      namespace.toLowerCase() === user.username.toLowerCase()
        ? undefined
        : await this.store.users.byUsername(namespace);
    if (namespaceOwner) {
      await this.store.members.add({
        project_id: row.id,
        user_id: namespaceOwner.id,
        access_level: ACCESS_LEVELS.owner,
        expires_at: null,
        created_at: this.now,
        created_by_id: user.id,
      });
    }
    this.readAccess({ kind: 'project', projectId: row.id });
    await this.recorder.record({
      projectId: row.id,
      authorId: user.id,
      action: 'created',
      targetType: null,
      targetId: null,
    });
    return { project: projectView(row), accessLevel: ACCESS_LEVELS.owner, starCount: 0 };
  }

  private taken(): never {
    const errors: FieldErrors = {};
    addError(errors, 'name', 'has already been taken');
    addError(errors, 'path', 'has already been taken');
    throw new InvalidRecordError(errors);
  }
}
