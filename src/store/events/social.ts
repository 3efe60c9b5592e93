/**
 * The sources of the starred and followed listings (issue 33): the projects a user starred that
 * they may read, and the users they follow whose profile they may read. A listing carries the set
 * it was resolved with in its source, so the set is part of its key and mark: a star or a follow
 * taken or dropped makes another listing, in every process, at once.
 */
import { canReadProject, canReadUserProfile, type Viewer } from '../../domain/visibility.js';
import type { Visibility } from '../../domain/vocabulary.js';
import { memberProjects } from './memberships.js';
import type { EventContext, EventQuery } from './query.js';

/** A starred project the viewer may read, as its per-project walk needs it. */
export interface StarredProject {
  projectId: number;
  visibility: string;
  /** The viewer's access level there, or null for a non-member. */
  accessLevel: number | null;
}

/**
 * Above this many sources a starred or followed listing is one joined walk. SQLite refuses a
 * compound SELECT of more than 500 terms; GitLab's 300 follows fit, and so do 500 stars.
 */
export const MAX_SOCIAL_PARTS = 500;

/** The projects `viewer` starred and may read on `day`, in project id order. */
export async function starredProjects(
  ctx: EventContext,
  viewer: Viewer,
  day: string,
): Promise<StarredProject[]> {
  const rows = await ctx.prepared
    .selectFrom('project_stars as s')
    .innerJoin('projects as p', 'p.id', 's.project_id')
    .select(['s.project_id', 'p.visibility'])
    .where('s.user_id', '=', viewer.userId)
    .orderBy('s.project_id')
    .execute();
  if (rows.length === 0) return [];
  const levels = new Map(
    (await memberProjects(ctx, viewer.userId, day)).map((m) => [m.projectId, m.accessLevel]),
  );
  const starred: StarredProject[] = [];
  for (const row of rows) {
    const accessLevel = levels.get(row.project_id) ?? null;
    if (!canReadProject(row.visibility as Visibility, viewer, accessLevel)) continue;
    starred.push({ projectId: row.project_id, visibility: row.visibility, accessLevel });
  }
  return starred;
}

/**
 * The users `viewer` follows whose profile they may read (a private or blocked profile's events
 * are not listed, as `/users/:id/events` answers `[]` for it), in id order.
 */
export async function followedUsers(ctx: EventContext, viewer: Viewer): Promise<number[]> {
  const rows = await ctx.prepared
    .selectFrom('user_follows as f')
    .innerJoin('users as u', 'u.id', 'f.followee_id')
    .select(['u.id', 'u.state', 'u.private_profile'])
    .where('f.follower_id', '=', viewer.userId)
    .orderBy('u.id')
    .execute();
  return rows
    .filter((u) =>
      canReadUserProfile(
        { id: u.id, state: u.state, privateProfile: Boolean(u.private_profile) },
        viewer,
      ),
    )
    .map((u) => u.id);
}

/**
 * The per-source walks a starred (one per project) or followed (one per followed user) listing
 * merges; null: not one of them, or one joined walk. `only`: just these projects or users.
 */
export function socialParts(q: EventQuery, only?: readonly number[]): EventQuery[] | null {
  const { source } = q;
  if (source.kind === 'starred') {
    if (source.projects.length > MAX_SOCIAL_PARTS) return null;
    const projects = only
      ? source.projects.filter((p) => only.includes(p.projectId))
      : source.projects;
    return projects.map((p) => ({ ...q, source: { kind: 'project', ...p } }));
  }
  if (source.kind === 'followed') {
    if (source.followees.length > MAX_SOCIAL_PARTS) return null;
    const followees = only ? source.followees.filter((id) => only.includes(id)) : source.followees;
    return followees.map((userId) => ({ ...q, source: { kind: 'author', userId } }));
  }
  return null;
}
