/**
 * Database rows → records of the import format, in dependency order, a page at a time. Push
 * payloads go back to the `before`/`after` form (blank SHA where GitLab stores null) and a full ref,
 * which the import turns into the very same row again.
 */
import { type PushCommit, fullRef } from '../domain/push-payload.js';
import {
  BLANK_SHA,
  type PushAction,
  type RefType,
  type TargetClass,
  type NoteableType,
  type UserState,
  type Visibility,
  actionFromCode,
} from '../domain/vocabulary.js';
import type { EventRow, PushPayloadRow } from '../store/schema.js';
import type { TransferStore } from '../store/transfer.js';
import type { DataRecord, EventRecord } from './records.js';

type IssueState = Extract<DataRecord, { kind: 'issue' }>['state'];
type MergeRequestState = Extract<DataRecord, { kind: 'merge_request' }>['state'];

export async function* exportRecords(source: TransferStore): AsyncGenerator<DataRecord[]> {
  for await (const rows of source.rowsById('users')) {
    yield rows.map((u) => ({
      kind: 'user',
      id: u.id,
      username: u.username,
      name: u.name,
      email: u.email,
      state: u.state as UserState,
      password: null,
      password_hash: u.password_hash,
      admin: u.admin === 1,
      two_factor_enabled: u.two_factor_enabled === 1,
      private_profile: u.private_profile === 1,
      avatar_url: u.avatar_url,
      created_at: u.created_at,
    }));
  }
  for await (const rows of source.rowsById('projects')) {
    yield rows.map((p) => ({
      kind: 'project',
      id: p.id,
      namespace: p.namespace,
      path: p.path,
      name: p.name,
      description: p.description,
      visibility: p.visibility as Visibility,
      creator_id: p.creator_id,
      created_at: p.created_at,
    }));
  }
  for await (const rows of source.memberRows()) {
    yield rows.map((m) => ({ kind: 'member', ...m }));
  }
  for await (const rows of source.rowsById('milestones')) {
    yield rows.map((m) => ({ kind: 'milestone', ...m }));
  }
  for await (const rows of source.rowsById('issues')) {
    yield rows.map((i) => ({
      kind: 'issue',
      id: i.id,
      project_id: i.project_id,
      iid: i.iid,
      title: i.title,
      author_id: i.author_id,
      confidential: i.confidential === 1,
      state: i.state as IssueState,
      created_at: i.created_at,
    }));
  }
  for await (const rows of source.rowsById('merge_requests')) {
    yield rows.map((m) => ({ kind: 'merge_request', ...m, state: m.state as MergeRequestState }));
  }
  for await (const rows of source.rowsById('snippets')) {
    yield rows.map((s) => ({ kind: 'snippet', ...s, visibility: s.visibility as Visibility }));
  }
  for await (const rows of source.rowsById('notes')) {
    yield rows.map((n) => ({
      kind: 'note',
      id: n.id,
      project_id: n.project_id,
      author_id: n.author_id,
      body: n.body,
      noteable_type: n.noteable_type as NoteableType,
      noteable_id: n.noteable_id,
      system: n.system === 1,
      attachment: n.attachment,
      created_at: n.created_at,
      updated_at: n.updated_at,
    }));
  }
  for await (const { events, pushes } of source.eventPages()) {
    yield events.map((e) => eventRecord(e, pushes.get(e.id)));
  }
  for await (const rows of source.rowsById('personal_access_tokens')) {
    yield rows.map((t) => ({
      kind: 'personal_access_token',
      id: t.id,
      user_id: t.user_id,
      name: t.name,
      token_digest: t.token_digest,
      scopes: t.scopes.split(' ').filter(Boolean),
      expires_at: t.expires_at,
      revoked: t.revoked === 1,
      created_at: t.created_at,
      last_used_at: t.last_used_at,
    }));
  }
  for await (const rows of source.rowsById('oauth_applications')) {
    yield rows.map((a) => ({
      kind: 'oauth_application',
      id: a.id,
      uid: a.uid,
      secret_digest: a.secret_digest,
      name: a.name,
      redirect_uris: a.redirect_uris.split('\n').filter(Boolean),
      scopes: a.scopes.split(' ').filter(Boolean),
      confidential: a.confidential === 1,
      owner_id: a.owner_id,
      created_at: a.created_at,
    }));
  }
}

function eventRecord(e: EventRow, push: PushPayloadRow | undefined): EventRecord {
  return {
    kind: 'event',
    id: e.id,
    project_id: e.project_id,
    author_id: e.author_id,
    action: actionFromCode(e.action),
    target_type: e.target_type as TargetClass | null,
    target_id: e.target_id,
    created_at: e.created_at,
    push: push
      ? {
          action: push.action as PushAction,
          refType: push.ref_type as RefType,
          ref: fullRef(push.ref_type as RefType, push.ref),
          before: push.commit_from ?? BLANK_SHA,
          after: push.commit_to ?? BLANK_SHA,
          commitCount: push.commit_count,
          commits: JSON.parse(push.commits) as PushCommit[],
        }
      : null,
  };
}
