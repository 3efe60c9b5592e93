/**
 * The record kinds of the import/export format, each defined once: its fields (a TypeBox schema,
 * in the order export writes them), the table it is stored in, and the columns computed from it.
 * Validation, the TypeScript types, export's canonical text and the rows written and read all
 * derive from these definitions. In memory, times are epoch ms; an absent optional field is
 * undefined or null, and the row mapping stores its default (record-rows.ts).
 */
import { type StaticDecode, type TObject, Type } from '@sinclair/typebox';
import type { PushInput } from '../domain/push-payload.js';
import { digest } from '../domain/secrets.js';
import {
  ACCESS_LEVEL_VALUES,
  ACTIONS,
  NOTEABLE_TYPES,
  PUSH_ACTIONS,
  REF_TYPES,
  TARGET_CLASSES,
  USER_STATES,
  VISIBILITIES,
  actionCode,
  actionFromCode,
} from '../domain/vocabulary.js';
import type { BulkTable } from '../store/bulk.js';
import {
  Count,
  Defaulted,
  FileOnly,
  Flag,
  BigId,
  Id,
  Maybe,
  Nullable,
  OneOf,
  type RowContext,
  Scopes,
  TEXT_MAX,
  TITLE_MAX,
  Text,
  Time,
  joined,
} from './record-fields.js';

export const ISSUE_STATES = ['opened', 'closed'] as const;
export const MERGE_REQUEST_STATES = ['opened', 'closed', 'merged', 'locked'] as const;
export const MILESTONE_STATES = ['active', 'closed'] as const;

/** Last update: the creation time when a file leaves it out (created_at may itself be defaulted). */
const UpdatedAt = Defaulted(
  Time,
  (r: { created_at?: number | null }, context) => r.created_at ?? context.now,
);

/** Unknown fields are rejected, so a misspelt key never silently becomes a default. */
const STRICT = { additionalProperties: false } as const;

const NAME_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const NAMESPACE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$/;
const SHA = /^[0-9a-f]{40}$/;
const DIGEST = /^[0-9a-f]{64}$/;

/** An absent `created_at` means "when it was imported". */
const CreatedAt = Defaulted(Nullable(Time), (_record, context) => context.now);

const Sha = Maybe(Text(40, { pattern: SHA, problem: 'must be 40 lowercase hex digits or null' }));

const Commit = Type.Object(
  {
    id: Text(64),
    message: Text(TEXT_MAX, { empty: true }),
    timestamp: Text(64),
    url: Text(2048, { empty: true }),
    author: Type.Object(
      { name: Text(TITLE_MAX, { empty: true }), email: Text(254, { empty: true }) },
      STRICT,
    ),
  },
  STRICT,
);

/** A push as the file writes it (full or short ref, before/after); PushInput in memory. */
const Push = Type.Transform(
  Type.Object(
    {
      action: Type.Optional(OneOf(PUSH_ACTIONS)),
      ref_type: Type.Optional(OneOf(REF_TYPES)),
      ref: Text(1024),
      before: Sha,
      after: Sha,
      commit_count: Type.Optional(Count),
      commits: Type.Array(Commit),
    },
    STRICT,
  ),
)
  .Decode(
    (p): PushInput => ({
      action: p.action,
      refType: p.ref_type,
      ref: p.ref,
      before: p.before ?? null,
      after: p.after ?? null,
      commitCount: p.commit_count ?? p.commits.length,
      commits: p.commits,
    }),
  )
  .Encode((p) => ({
    action: p.action,
    ref_type: p.refType,
    ref: p.ref,
    before: p.before,
    after: p.after,
    commit_count: p.commitCount,
    commits: p.commits,
  }));

const User = Type.Object(
  {
    kind: Type.Literal('user'),
    id: Id,
    username: Text(255, { format: 'pulsegate-username' }),
    name: Text(TITLE_MAX),
    email: Text(254, { format: 'pulsegate-email' }),
    state: Defaulted(OneOf(USER_STATES), 'active'),
    /** Plain, from generated input files only: hashed on import, never exported. */
    password: FileOnly(Maybe(Text(1024))),
    password_hash: Maybe(Text(1024)),
    admin: Flag(false),
    two_factor_enabled: Flag(false),
    private_profile: Flag(false),
    avatar_url: Maybe(Text(2048)),
    created_at: CreatedAt,
    /** The contribution calendar's settings (GitLab's `timezone`, "include private contributions"). */
    timezone: Defaulted(Text(64, { format: 'pulsegate-time-zone' }), 'UTC'),
    include_private_contributions: Flag(false),
  },
  STRICT,
);

const Project = Type.Object(
  {
    kind: Type.Literal('project'),
    id: Id,
    namespace: Text(255, {
      pattern: NAMESPACE,
      problem: 'must be path segments separated by "/"',
    }),
    path: Text(255, { pattern: NAME_SEGMENT, problem: 'has invalid characters' }),
    name: Defaulted(Nullable(Text(TITLE_MAX)), (p: { path: string }) => p.path),
    description: Defaulted(Nullable(Text(TEXT_MAX, { empty: true })), ''),
    visibility: OneOf(VISIBILITIES),
    creator_id: Id,
    created_at: CreatedAt,
    default_branch: Defaulted(Text(255), 'main'),
    last_activity_at: Maybe(Time),
  },
  STRICT,
);

const Member = Type.Object(
  {
    kind: Type.Literal('member'),
    project_id: Id,
    user_id: Id,
    access_level: OneOf(ACCESS_LEVEL_VALUES),
    /** The membership ends after this day (UTC). */
    expires_at: Maybe(Text(10, { format: 'pulsegate-day' })),
    created_at: Maybe(Time),
    created_by_id: Maybe(Id),
  },
  STRICT,
);

const Milestone = Type.Object(
  {
    kind: Type.Literal('milestone'),
    id: Id,
    project_id: Id,
    iid: Id,
    title: Text(TITLE_MAX),
    created_at: CreatedAt,
    description: Defaulted(Text(TEXT_MAX, { empty: true }), ''),
    state: Defaulted(OneOf(MILESTONE_STATES), 'active'),
    due_date: Maybe(Text(10, { format: 'pulsegate-day' })),
    start_date: Maybe(Text(10, { format: 'pulsegate-day' })),
    updated_at: UpdatedAt,
  },
  STRICT,
);

/** What issues and merge requests both carry since they can be written here. */
const TRACKED = {
  description: Defaulted(Text(TEXT_MAX, { empty: true }), ''),
  updated_at: UpdatedAt,
  closed_at: Maybe(Time),
  closed_by_id: Maybe(Id),
  milestone_id: Maybe(Id),
};

const Issue = Type.Object(
  {
    kind: Type.Literal('issue'),
    id: BigId,
    project_id: Id,
    iid: Id,
    title: Text(TITLE_MAX),
    author_id: Id,
    confidential: Flag(false),
    state: Defaulted(OneOf(ISSUE_STATES), 'opened'),
    created_at: CreatedAt,
    ...TRACKED,
  },
  STRICT,
);

const MergeRequest = Type.Object(
  {
    kind: Type.Literal('merge_request'),
    id: BigId,
    project_id: Id,
    iid: Id,
    title: Text(TITLE_MAX),
    author_id: Id,
    state: Defaulted(OneOf(MERGE_REQUEST_STATES), 'opened'),
    created_at: CreatedAt,
    ...TRACKED,
    source_branch: Defaulted(Text(255, { empty: true }), ''),
    target_branch: Defaulted(Text(255, { empty: true }), ''),
    merged_at: Maybe(Time),
    merged_by_id: Maybe(Id),
  },
  STRICT,
);

/** A member's approval of a merge request (`POST …/approve`). */
const Approval = Type.Object(
  {
    kind: Type.Literal('approval'),
    merge_request_id: BigId,
    user_id: Id,
    created_at: CreatedAt,
  },
  STRICT,
);

const Snippet = Type.Object(
  {
    kind: Type.Literal('snippet'),
    id: Id,
    project_id: Maybe(Id),
    title: Text(TITLE_MAX),
    author_id: Id,
    visibility: OneOf(VISIBILITIES),
    created_at: CreatedAt,
  },
  STRICT,
);

const Note = Type.Object(
  {
    kind: Type.Literal('note'),
    id: BigId,
    project_id: Id,
    author_id: Id,
    body: Text(TEXT_MAX),
    noteable_type: OneOf(NOTEABLE_TYPES),
    noteable_id: BigId,
    system: Flag(false),
    attachment: Maybe(Text(2048)),
    created_at: Time,
    updated_at: Defaulted(Nullable(Time), (n: { created_at: number }) => n.created_at),
  },
  STRICT,
);

const Event = Type.Object(
  {
    kind: Type.Literal('event'),
    id: BigId,
    project_id: Id,
    author_id: Id,
    // Stored as GitLab's numeric action code.
    action: OneOf(ACTIONS, {
      column: {
        toColumn: (name: (typeof ACTIONS)[number]) => actionCode(name),
        fromColumn: (code: number) => actionFromCode(code),
      },
    }),
    target_type: Maybe(OneOf(TARGET_CLASSES)),
    target_id: Maybe(BigId),
    created_at: Time,
    /** Stored in push_event_payloads (push-rows.ts). */
    push: FileOnly(Maybe(Push)),
  },
  STRICT,
);

const Token = Type.Object(
  {
    kind: Type.Literal('personal_access_token'),
    id: Id,
    user_id: Id,
    name: Text(TITLE_MAX),
    /** Plain, from generated input files only: digested on import, never exported. */
    token: FileOnly(Maybe(Text(1024))),
    token_digest: Maybe(Text(64)),
    scopes: Scopes,
    expires_at: Maybe(Text(10, { format: 'pulsegate-day' })),
    revoked: Flag(false),
    created_at: CreatedAt,
    last_used_at: Maybe(Time),
  },
  STRICT,
);

/** An OAuth application, so registered clients keep their App ID and secret across a move. */
const Application = Type.Object(
  {
    kind: Type.Literal('oauth_application'),
    id: Id,
    /** The App ID (`client_id`). */
    uid: Text(255, { pattern: /^[A-Za-z0-9_-]+$/, problem: 'must be made of A-Z a-z 0-9 _ -' }),
    /** SHA-256 of the App Secret; the secret itself is never in a file. */
    secret_digest: Text(64, {
      pattern: DIGEST,
      problem: 'must be 64 lowercase hex digits (SHA-256)',
    }),
    name: Text(TITLE_MAX),
    // Stored one URI per line, as the registration page writes them.
    redirect_uris: Type.Array(Text(2048, { format: 'pulsegate-redirect-uri' }), {
      minItems: 1,
      problem: 'must be a list of strings',
      tooFew: 'must list at least one URI',
      column: joined('\n'),
    }),
    scopes: Scopes,
    confidential: Flag(true),
    owner_id: Id,
    created_at: CreatedAt,
    /** How its ID tokens are signed; absent or null means the default (RS256). */
    id_token_signed_response_alg: Maybe(
      Text(5, { pattern: /^(RS256|ES256)$/, problem: 'must be RS256 or ES256' }),
    ),
  },
  STRICT,
);

/** A user's star on a project (`POST /projects/:id/star`). */
const Star = Type.Object(
  {
    kind: Type.Literal('star'),
    user_id: Id,
    project_id: Id,
    created_at: CreatedAt,
  },
  STRICT,
);

/** A user following another (`POST /users/:id/follow`); never oneself. */
const Follow = Type.Object(
  {
    kind: Type.Literal('follow'),
    follower_id: Id,
    followee_id: Id,
    created_at: CreatedAt,
  },
  STRICT,
);

export type UserRecord = StaticDecode<typeof User>;
export type ProjectRecord = StaticDecode<typeof Project>;
export type MemberRecord = StaticDecode<typeof Member>;
export type MilestoneRecord = StaticDecode<typeof Milestone>;
export type IssueRecord = StaticDecode<typeof Issue>;
export type MergeRequestRecord = StaticDecode<typeof MergeRequest>;
export type ApprovalRecord = StaticDecode<typeof Approval>;
export type SnippetRecord = StaticDecode<typeof Snippet>;
export type NoteRecord = StaticDecode<typeof Note>;
export type EventRecord = StaticDecode<typeof Event>;
export type TokenRecord = StaticDecode<typeof Token>;
export type ApplicationRecord = StaticDecode<typeof Application>;
export type StarRecord = StaticDecode<typeof Star>;
export type FollowRecord = StaticDecode<typeof Follow>;

/** The token's digest: a plain `token` in the file is digested, never stored. */
export function tokenDigest(r: TokenRecord): string {
  return r.token_digest ?? digest(r.token!);
}

/** Columns computed from the record rather than copied from one of its fields. */
type Derived<R> = Record<string, (record: R, context: RowContext) => unknown>;

export interface KindDefinition<R = unknown> {
  table: BulkTable;
  schema: TObject;
  derived: Derived<R>;
}

function kind<S extends TObject>(
  table: BulkTable,
  schema: S,
  derived: Derived<StaticDecode<S>> = {},
): KindDefinition<StaticDecode<S>> {
  return { table, schema, derived };
}

/** Every kind, in dependency order: export writes them so, and an import must read them so. */
export const KINDS = {
  user: kind('users', User, {
    password_hash: (r, context) => context.passwordHash ?? r.password_hash,
  }),
  project: kind('projects', Project, { full_path: (r) => `${r.namespace}/${r.path}` }),
  member: kind('project_members', Member),
  milestone: kind('milestones', Milestone),
  issue: kind('issues', Issue),
  merge_request: kind('merge_requests', MergeRequest),
  approval: kind('merge_request_approvals', Approval),
  snippet: kind('snippets', Snippet),
  note: kind('notes', Note),
  // issue_id: the issue an event concerns, on which the confidentiality check depends.
  event: kind('events', Event, { issue_id: (_r, context) => context.issueId }),
  personal_access_token: kind('personal_access_tokens', Token, { token_digest: tokenDigest }),
  oauth_application: kind('oauth_applications', Application),
  star: kind('project_stars', Star),
  follow: kind('user_follows', Follow),
};

export type RecordKind = keyof typeof KINDS;
export const RECORD_KINDS = Object.keys(KINDS) as RecordKind[];

export type DataRecord =
  | UserRecord
  | ProjectRecord
  | MemberRecord
  | MilestoneRecord
  | IssueRecord
  | MergeRequestRecord
  | ApprovalRecord
  | SnippetRecord
  | NoteRecord
  | EventRecord
  | TokenRecord
  | ApplicationRecord
  | StarRecord
  | FollowRecord;
