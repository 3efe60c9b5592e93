/**
 * The canonical text of a record: fixed key order per kind and ISO 8601 times with milliseconds,
 * so that exporting the same data twice, from either dialect, gives the same bytes.
 */
import type { PushInput } from '../domain/push-payload.js';
import type { DataRecord } from './records.js';

function time(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function push(p: PushInput) {
  return {
    action: p.action,
    ref_type: p.refType,
    ref: p.ref,
    before: p.before,
    after: p.after,
    commit_count: p.commitCount,
    commits: p.commits.map((c) => ({
      id: c.id,
      message: c.message,
      timestamp: c.timestamp,
      url: c.url,
      author: { name: c.author.name, email: c.author.email },
    })),
  };
}

/** One line of the format, without the trailing newline. */
export function formatRecord(r: DataRecord): string {
  switch (r.kind) {
    case 'user':
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        username: r.username,
        name: r.name,
        email: r.email,
        state: r.state,
        // A plain password only ever appears in generated input files, never in an export.
        ...(r.password !== null ? { password: r.password } : { password_hash: r.password_hash }),
        admin: r.admin,
        two_factor_enabled: r.two_factor_enabled,
        private_profile: r.private_profile,
        avatar_url: r.avatar_url,
        created_at: time(r.created_at),
      });
    case 'project':
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        namespace: r.namespace,
        path: r.path,
        name: r.name,
        description: r.description,
        visibility: r.visibility,
        creator_id: r.creator_id,
        created_at: time(r.created_at),
      });
    case 'member':
      return JSON.stringify({
        kind: r.kind,
        project_id: r.project_id,
        user_id: r.user_id,
        access_level: r.access_level,
      });
    case 'milestone':
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        project_id: r.project_id,
        iid: r.iid,
        title: r.title,
        created_at: time(r.created_at),
      });
    case 'issue':
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        project_id: r.project_id,
        iid: r.iid,
        title: r.title,
        author_id: r.author_id,
        confidential: r.confidential,
        state: r.state,
        created_at: time(r.created_at),
      });
    case 'merge_request':
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        project_id: r.project_id,
        iid: r.iid,
        title: r.title,
        author_id: r.author_id,
        state: r.state,
        created_at: time(r.created_at),
      });
    case 'snippet':
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        project_id: r.project_id,
        title: r.title,
        author_id: r.author_id,
        visibility: r.visibility,
        created_at: time(r.created_at),
      });
    case 'note':
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        project_id: r.project_id,
        author_id: r.author_id,
        body: r.body,
        noteable_type: r.noteable_type,
        noteable_id: r.noteable_id,
        system: r.system,
        attachment: r.attachment,
        created_at: time(r.created_at),
        updated_at: time(r.updated_at),
      });
    case 'event':
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        project_id: r.project_id,
        author_id: r.author_id,
        action: r.action,
        target_type: r.target_type,
        target_id: r.target_id,
        created_at: time(r.created_at),
        ...(r.push ? { push: push(r.push) } : {}),
      });
    case 'personal_access_token':
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        user_id: r.user_id,
        name: r.name,
        token_digest: r.token_digest,
        scopes: r.scopes,
        expires_at: r.expires_at,
        revoked: r.revoked,
        created_at: time(r.created_at),
        last_used_at: time(r.last_used_at),
      });
    case 'oauth_application':
      return JSON.stringify({
        kind: r.kind,
        id: r.id,
        uid: r.uid,
        secret_digest: r.secret_digest,
        name: r.name,
        redirect_uris: r.redirect_uris,
        scopes: r.scopes,
        confidential: r.confidential,
        owner_id: r.owner_id,
        created_at: time(r.created_at),
      });
  }
}
