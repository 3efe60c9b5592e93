/** What OpenID Connect needs beyond the OAuth tables: group memberships and standing consent. */
import type { Kysely } from 'kysely';
import { activeOn } from './membership-sql.js';
import type { Database } from './schema.js';

export class IdentityStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Namespaces of the projects the user is a member of, except personal ones (a namespace that
   * is a username): GitLab's `groups` claim lists groups, not users. Expired memberships (on
   * `day`) count for nothing.
   */
  async groupsOf(userId: number, day: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('project_members')
      .innerJoin('projects', 'projects.id', 'project_members.project_id')
      .select('projects.namespace')
      .distinct()
      .where('project_members.user_id', '=', userId)
      .where(activeOn('project_members.expires_at', day))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('users')
              .select('users.id')
              .whereRef('users.username', '=', 'projects.namespace'),
          ),
        ),
      )
      .orderBy('projects.namespace')
      .execute();
    return rows.map((r) => r.namespace);
  }

  /**
   * Scope lists of the user's tokens for an application that can still be used or refreshed:
   * the consent the user has given and not withdrawn.
   */
  async standingScopes(userId: number, applicationId: number, now: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('oauth_access_tokens')
      .select('scopes')
      .distinct()
      .where('user_id', '=', userId)
      .where('application_id', '=', applicationId)
      .where('revoked_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb('refresh_digest', 'is not', null),
          eb(eb('created_at', '+', eb('expires_in', '*', 1000)), '>', now),
        ]),
      )
      .execute();
    return rows.map((r) => r.scopes);
  }
}
