/**
 * Builds scenario data straight into the store, so tests read like stories: "alice owns a private
 * project with a confidential issue; bob is a guest". Ids are assigned by the database.
 */
import { normalizePush } from '../../src/domain/push-payload.js';
import { digest, randomSecret } from '../../src/domain/secrets.js';
import { actionCode, type Action } from '../../src/domain/vocabulary.js';
import type { Store } from '../../src/store/store.js';
import type { NewProjectHook } from '../../src/store/webhooks.js';

const T0 = Date.UTC(2026, 0, 1, 9, 0, 0);

export class Fixtures {
  private seq = 0;

  constructor(readonly store: Store) {}

  private get db() {
    return this.store.db;
  }

  async user(
    username: string,
    extra: Partial<{
      admin: boolean;
      state: string;
      privateProfile: boolean;
      passwordHash: string | null;
      name: string;
    }> = {},
  ) {
    return this.db
      .insertInto('users')
      .values({
        username,
        name: extra.name ?? username.charAt(0).toUpperCase() + username.slice(1),
        email: `${username}@example.com`,
        state: extra.state ?? 'active',
        password_hash: extra.passwordHash ?? null,
        admin: extra.admin ? 1 : 0,
        two_factor_enabled: 0,
        private_profile: extra.privateProfile ? 1 : 0,
        created_at: T0,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async project(
    fullPath: string,
    creatorId: number,
    visibility: 'public' | 'internal' | 'private' = 'public',
  ) {
    const slash = fullPath.lastIndexOf('/');
    const path = fullPath.slice(slash + 1);
    return this.db
      .insertInto('projects')
      .values({
        namespace: fullPath.slice(0, slash),
        path,
        full_path: fullPath,
        name: path,
        description: `The ${path} project`,
        visibility,
        creator_id: creatorId,
        created_at: T0,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async member(projectId: number, userId: number, accessLevel: number) {
    await this.db
      .insertInto('project_members')
      .values({ project_id: projectId, user_id: userId, access_level: accessLevel })
      .execute();
  }

  async issue(projectId: number, authorId: number, title: string, confidential = false) {
    const iid = ++this.seq;
    return this.db
      .insertInto('issues')
      .values({
        project_id: projectId,
        iid,
        title,
        author_id: authorId,
        confidential: confidential ? 1 : 0,
        state: 'opened',
        created_at: T0,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async mergeRequest(projectId: number, authorId: number, title: string) {
    const iid = ++this.seq;
    return this.db
      .insertInto('merge_requests')
      .values({
        project_id: projectId,
        iid,
        title,
        author_id: authorId,
        state: 'opened',
        created_at: T0,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async note(
    projectId: number,
    authorId: number,
    noteable: { type: 'Issue' | 'MergeRequest'; id: number },
    body: string,
  ) {
    return this.db
      .insertInto('notes')
      .values({
        project_id: projectId,
        author_id: authorId,
        body,
        noteable_type: noteable.type,
        noteable_id: noteable.id,
        system: 0,
        attachment: null,
        created_at: T0,
        updated_at: T0,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** An event; `issueId` marks events about an issue (or a note on one) for confidentiality. */
  async event(e: {
    projectId: number;
    authorId: number;
    action: Action;
    targetType?: string | null;
    targetId?: number | null;
    issueId?: number | null;
    createdAt: string | number;
    push?: {
      action?: 'pushed' | 'created' | 'removed';
      refType?: 'branch' | 'tag';
      ref?: string;
      from?: string | null;
      to?: string | null;
      /** Defaults to the number of commits given (a push may report more than it lists). */
      commitCount?: number;
      commits?: { id: string; message: string }[];
    };
  }) {
    const createdAt = typeof e.createdAt === 'number' ? e.createdAt : Date.parse(e.createdAt);
    const row = await this.db
      .insertInto('events')
      .values({
        project_id: e.projectId,
        author_id: e.authorId,
        action: actionCode(e.action),
        target_type: e.targetType ?? null,
        target_id: e.targetId ?? null,
        issue_id: e.issueId ?? null,
        created_at: createdAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (e.push) {
      const commits = (e.push.commits ?? []).map((c) => ({
        id: c.id,
        message: c.message,
        timestamp: new Date(createdAt).toISOString().replace('.000Z', '+00:00'),
        url: `http://example.test/commit/${c.id}`,
        author: { name: 'Dev', email: 'dev@example.com' },
      }));
      // Through the same rule import and seed use (short ref, commit title, 20 newest commits).
      const push = normalizePush({
        action: e.push.action,
        refType: e.push.refType ?? 'branch',
        ref: e.push.ref ?? 'main',
        before: e.push.from === undefined ? 'a'.repeat(40) : e.push.from,
        after: e.push.to === undefined ? 'b'.repeat(40) : e.push.to,
        commitCount: e.push.commitCount ?? commits.length,
        commits,
      });
      await this.db
        .insertInto('push_event_payloads')
        .values({
          event_id: row.id,
          action: push.action,
          ref_type: push.refType,
          ref: push.ref,
          commit_from: push.commitFrom,
          commit_to: push.commitTo,
          commit_count: push.commitCount,
          commit_title: push.commitTitle,
          commits: JSON.stringify(push.commits),
        })
        .execute();
    }
    return row;
  }

  /** A personal access token; returns the plaintext (the store keeps only its digest). */
  async token(
    userId: number,
    scopes: string[] = ['api'],
    extra: Partial<{ expiresAt: string | null; revoked: boolean; name: string }> = {},
  ): Promise<string> {
    const token = `glpat-${randomSecret(24)}`;
    await this.db
      .insertInto('personal_access_tokens')
      .values({
        user_id: userId,
        name: extra.name ?? 'test',
        token_digest: digest(token),
        scopes: scopes.join(' '),
        expires_at: extra.expiresAt ?? null,
        revoked: extra.revoked ? 1 : 0,
        created_at: T0,
      })
      .execute();
    return token;
  }

  /**
   * A hook row on issue events only, with no token, straight into the store (a row as an older
   * release left it, or one made before the server that delivers it starts); `extra` overrides.
   */
  hook(
    projectId: number,
    url: string,
    extra: Partial<Omit<NewProjectHook, 'project_id' | 'url'>> = {},
  ) {
    return this.store.webhooks.createHook({
      project_id: projectId,
      url,
      token: null,
      push_events: 0,
      tag_push_events: 0,
      issues_events: 1,
      confidential_issues_events: 0,
      merge_requests_events: 0,
      note_events: 0,
      confidential_note_events: 0,
      member_events: 0,
      enable_ssl_verification: 1,
      created_at: Date.now(),
      ...extra,
    });
  }
}
