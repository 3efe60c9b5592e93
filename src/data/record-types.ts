/**
 * The record kinds of the import/export format, as parsed: one interface per kind. Times are epoch
 * ms; null means "absent in the file" (the importer then uses the current time).
 */
import type { PushInput } from '../domain/push-payload.js';
import type { Action, NoteableType, TargetClass, UserState, Visibility } from '../domain/vocabulary.js';

export const RECORD_KINDS = [
  'user',
  'project',
  'member',
  'milestone',
  'issue',
  'merge_request',
  'snippet',
  'note',
  'event',
  'personal_access_token',
  'oauth_application',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export const ISSUE_STATES = ['opened', 'closed'] as const;
export const MERGE_REQUEST_STATES = ['opened', 'closed', 'merged', 'locked'] as const;

export interface UserRecord {
  kind: 'user';
  id: number;
  username: string;
  name: string;
  email: string;
  state: UserState;
  /** Plain password from the file, hashed on import; never exported. */
  password: string | null;
  password_hash: string | null;
  admin: boolean;
  two_factor_enabled: boolean;
  private_profile: boolean;
  avatar_url: string | null;
  created_at: number | null;
}

export interface ProjectRecord {
  kind: 'project';
  id: number;
  namespace: string;
  path: string;
  name: string;
  description: string;
  visibility: Visibility;
  creator_id: number;
  created_at: number | null;
}

export interface MemberRecord {
  kind: 'member';
  project_id: number;
  user_id: number;
  access_level: number;
}

export interface MilestoneRecord {
  kind: 'milestone';
  id: number;
  project_id: number;
  iid: number;
  title: string;
  created_at: number | null;
}

export interface IssueRecord {
  kind: 'issue';
  id: number;
  project_id: number;
  iid: number;
  title: string;
  author_id: number;
  confidential: boolean;
  state: (typeof ISSUE_STATES)[number];
  created_at: number | null;
}

export interface MergeRequestRecord {
  kind: 'merge_request';
  id: number;
  project_id: number;
  iid: number;
  title: string;
  author_id: number;
  state: (typeof MERGE_REQUEST_STATES)[number];
  created_at: number | null;
}

export interface SnippetRecord {
  kind: 'snippet';
  id: number;
  project_id: number | null;
  title: string;
  author_id: number;
  visibility: Visibility;
  created_at: number | null;
}

export interface NoteRecord {
  kind: 'note';
  id: number;
  project_id: number;
  author_id: number;
  body: string;
  noteable_type: NoteableType;
  noteable_id: number;
  system: boolean;
  attachment: string | null;
  created_at: number;
  /** Defaults to created_at. */
  updated_at: number | null;
}

export interface EventRecord {
  kind: 'event';
  id: number;
  project_id: number;
  author_id: number;
  action: Action;
  target_type: TargetClass | null;
  target_id: number | null;
  created_at: number;
  push: PushInput | null;
}

export interface TokenRecord {
  kind: 'personal_access_token';
  id: number;
  user_id: number;
  name: string;
  /** Always the digest: a plain `token` in the file is digested while parsing. */
  token_digest: string;
  scopes: string[];
  expires_at: string | null;
  revoked: boolean;
  created_at: number | null;
  last_used_at: number | null;
}

/** An OAuth application, so registered clients keep their App ID and secret across a move. */
export interface ApplicationRecord {
  kind: 'oauth_application';
  id: number;
  /** The App ID (`client_id`). */
  uid: string;
  /** SHA-256 of the App Secret; the secret itself is never in a file. */
  secret_digest: string;
  name: string;
  redirect_uris: string[];
  scopes: string[];
  confidential: boolean;
  owner_id: number;
  created_at: number | null;
}

export type DataRecord =
  | UserRecord
  | ProjectRecord
  | MemberRecord
  | MilestoneRecord
  | IssueRecord
  | MergeRequestRecord
  | SnippetRecord
  | NoteRecord
  | EventRecord
  | TokenRecord
  | ApplicationRecord;
