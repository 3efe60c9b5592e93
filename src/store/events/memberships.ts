/** The projects a user belongs to, as the listings that merge or judge them read them. */
import { membershipActive, membershipDay } from '../../domain/membership-expiry.js';
import type { EventContext, MemberProject } from './query.js';

/** The user's member projects on `day` (expired memberships left out), in project id order. */
export async function memberProjects(
  ctx: EventContext,
  userId: number,
  day: string = membershipDay(Date.now()),
): Promise<MemberProject[]> {
  const { projects, expiries } = await ctx.members.get(userId, async () => {
    const rows = await ctx.prepared
      .selectFrom('project_members as m')
      .innerJoin('projects as p', 'p.id', 'm.project_id')
      .select(['m.project_id', 'm.access_level', 'm.expires_at', 'p.visibility'])
      .where('m.user_id', '=', userId)
      .orderBy('m.project_id')
      .execute();
    return {
      projects: rows.map((r) => ({
        projectId: r.project_id,
        visibility: r.visibility,
        accessLevel: r.access_level,
      })),
      expiries: rows.map((r) => r.expires_at),
    };
  });
  // Kept whole and judged on each read: expiry is a matter of the day, not of a write.
  if (expiries.every((expiresAt) => membershipActive(expiresAt, day))) return projects;
  return projects.filter((_, i) => membershipActive(expiries[i]!, day));
}
