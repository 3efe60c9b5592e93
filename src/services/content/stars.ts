/**
 * Stars (lib/api/projects.rb `star`, `unstar`, `starrers`). Starring needs read access to the
 * project (404 otherwise, as every project route); it writes no event (GitLab writes none).
 * The triggers of migration 024 move the user's social version and the listing version.
 */
import { type UserView, projectView, userView } from '../views.js';
import { Ops, type ProjectAccess } from './context.js';
import type { ProjectDetail } from './projects.js';

/** What a star or unstar did: the project as it now is, or nothing (GitLab's 304). */
export type StarChange = { changed: true; detail: ProjectDetail } | { changed: false };

export interface StarrerView {
  user: UserView;
  starredSince: number;
}

export class StarOps extends Ops {
  /** `POST /projects/:id/star`: unchanged when the actor starred it already. */
  async star(idOrPath: string): Promise<StarChange> {
    const access = await this.project(idOrPath);
    const added = await this.store.stars.add(this.actor.user.id, access.project.id, this.now);
    return added ? { changed: true, detail: await this.detail(access) } : { changed: false };
  }

  /** `POST /projects/:id/unstar`: unchanged when the actor had not starred it. */
  async unstar(idOrPath: string): Promise<StarChange> {
    const access = await this.project(idOrPath);
    const removed = await this.store.stars.remove(this.actor.user.id, access.project.id);
    return removed ? { changed: true, detail: await this.detail(access) } : { changed: false };
  }

  /** A readable project's star count, and whether the (signed-in) actor starred it. */
  async state(idOrPath: string): Promise<{ starCount: number; starred: boolean | null }> {
    const access = await this.project(idOrPath);
    const actor = this.context.actor;
    const [counts, starred] = await Promise.all([
      this.store.stars.counts([access.project.id]),
      actor ? this.store.stars.has(actor.user.id, access.project.id) : null,
    ]);
    return { starCount: counts.get(access.project.id) ?? 0, starred };
  }

  /**
   * `GET /projects/:id/starrers`: who starred a project the viewer can read, in the order they
   * starred it; private and blocked profiles only to themselves and administrators.
   */
  async starrers(
    idOrPath: string,
    search: string | undefined,
    slice: { offset: number; limit: number },
  ): Promise<{ items: StarrerView[]; total: number }> {
    const access = await this.project(idOrPath);
    const query = {
      projectId: access.project.id,
      search,
      viewer: this.context.actor?.viewer ?? null,
      ...slice,
    };
    const [rows, total] = await Promise.all([
      this.store.stars.starrers(query),
      this.store.stars.countStarrers(query),
    ]);
    return {
      items: rows.map((r) => ({ user: userView(r.user), starredSince: r.starredAt })),
      total,
    };
  }

  private async detail(access: ProjectAccess): Promise<ProjectDetail> {
    const counts = await this.store.stars.counts([access.project.id]);
    return {
      project: projectView(access.project),
      accessLevel: access.accessLevel,
      starCount: counts.get(access.project.id) ?? 0,
    };
  }
}
