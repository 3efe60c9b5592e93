/**
 * The one typed schema both dialects share. Why integers for flags and times: SQLite has no
 * boolean or timestamptz, and storing 0/1 and epoch milliseconds in both dialects makes exports and
 * API responses byte-identical across them.
 */
import type { Generated, Insertable, Selectable } from 'kysely';

/** 0 or 1. */
export type Flag = number;
/** Milliseconds since the Unix epoch, UTC. */
export type EpochMs = number;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  name: string;
  email: string;
  state: string;
  password_hash: string | null;
  admin: Flag;
  two_factor_enabled: Flag;
  /** TOTP secret (base32); needed in clear to verify codes, never exported in clear elsewhere. */
  otp_secret: string | null;
  /** Space-separated SHA-256 digests of unused recovery codes. */
  otp_recovery_digests: string | null;
  private_profile: Flag;
  avatar_url: string | null;
  created_at: EpochMs;
}

export interface ProjectsTable {
  id: Generated<number>;
  namespace: string;
  path: string;
  /** namespace + '/' + path; looked up case-insensitively. */
  full_path: string;
  name: string;
  description: string;
  visibility: string;
  creator_id: number;
  created_at: EpochMs;
  default_branch: Generated<string>;
  /** When the project last had activity (an event); null until its first write here. */
  last_activity_at: EpochMs | null;
}

export interface ProjectMembersTable {
  project_id: number;
  user_id: number;
  access_level: number;
  /** YYYY-MM-DD (UTC): the membership ends after this day. */
  expires_at: string | null;
  created_at: EpochMs | null;
  created_by_id: number | null;
}

/** The columns issues and merge requests share (the tracked kinds). */
interface TrackedColumns {
  id: Generated<number>;
  project_id: number;
  iid: number;
  title: string;
  author_id: number;
  state: string;
  created_at: EpochMs;
  description: Generated<string>;
  updated_at: Generated<EpochMs>;
  closed_at: EpochMs | null;
  closed_by_id: number | null;
  milestone_id: number | null;
}

export interface IssuesTable extends TrackedColumns {
  confidential: Flag;
}

export interface MergeRequestsTable extends TrackedColumns {
  source_branch: Generated<string>;
  target_branch: Generated<string>;
  merged_at: EpochMs | null;
  merged_by_id: number | null;
}

export interface MergeRequestApprovalsTable {
  merge_request_id: number;
  user_id: number;
  created_at: EpochMs;
}

export interface MilestonesTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  title: string;
  created_at: EpochMs;
  description: Generated<string>;
  /** `active` or `closed`. */
  state: Generated<string>;
  /** YYYY-MM-DD or null. */
  due_date: string | null;
  start_date: string | null;
  updated_at: Generated<EpochMs>;
}

export interface SnippetsTable {
  id: Generated<number>;
  project_id: number | null;
  title: string;
  author_id: number;
  visibility: string;
  created_at: EpochMs;
}

export interface NotesTable {
  id: Generated<number>;
  project_id: number;
  author_id: number;
  body: string;
  noteable_type: string;
  noteable_id: number;
  system: Flag;
  attachment: string | null;
  created_at: EpochMs;
  updated_at: EpochMs;
}

export interface EventsTable {
  id: Generated<number>;
  project_id: number;
  author_id: number;
  /** GitLab's action enum value (see domain/vocabulary). */
  action: number;
  target_type: string | null;
  target_id: number | null;
  /**
   * The issue this event concerns (target issue, or the issue a target note is on), kept so that
   * the confidentiality check is one indexed lookup instead of a join through notes.
   */
  issue_id: number | null;
  created_at: EpochMs;
}

export interface PushEventPayloadsTable {
  event_id: number;
  action: string;
  ref_type: string;
  /** Short ref name (without refs/heads/ or refs/tags/). */
  ref: string;
  commit_from: string | null;
  commit_to: string | null;
  commit_count: number;
  commit_title: string | null;
  /** JSON array of at most the 20 newest commits, oldest first. */
  commits: string;
}

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_digest: string;
  /** Space-separated scopes. */
  scopes: string;
  /** `YYYY-MM-DD`; the token works through the end of that day (UTC). */
  expires_at: string | null;
  revoked: Flag;
  last_used_at: EpochMs | null;
  created_at: EpochMs;
}

export interface OAuthApplicationsTable {
  id: Generated<number>;
  /** The public client_id, [A-Za-z0-9_-] only (safe in Basic auth with or without encoding). */
  uid: string;
  secret_digest: string;
  name: string;
  /** Registered redirect URIs, one per line, compared by exact string match. */
  redirect_uris: string;
  /** Space-separated scopes the application may request. */
  scopes: string;
  confidential: Flag;
  owner_id: number;
  created_at: EpochMs;
  /** `RS256` (the default, when null) or `ES256`: how this client's ID tokens are signed. */
  id_token_signed_response_alg: string | null;
}

export interface OAuthAccessGrantsTable {
  id: Generated<number>;
  code_digest: string;
  application_id: number;
  user_id: number;
  redirect_uri: string;
  scopes: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  created_at: EpochMs;
  /** Seconds. */
  expires_in: number;
  /** Set once, atomically, by the one exchange that wins. */
  consumed_at: EpochMs | null;
  revoked_at: EpochMs | null;
  /** OpenID Connect: the request's nonce, echoed in the ID token. */
  nonce: string | null;
  /** When the user signed in (the ID token's `auth_time`). */
  auth_time: EpochMs | null;
}

export interface OAuthAccessTokensTable {
  id: Generated<number>;
  token_digest: string;
  refresh_digest: string | null;
  /** Null for password grants made without client credentials. */
  application_id: number | null;
  user_id: number;
  scopes: string;
  created_at: EpochMs;
  /** Seconds. */
  expires_in: number;
  revoked_at: EpochMs | null;
  /** The authorization code the family started from (revoked together on code replay). */
  grant_id: number | null;
  /** Shared by a token and every token refreshed from it (revoked together on refresh replay). */
  family_id: string;
  /** When the user signed in for this family (carried through refreshes for `auth_time`). */
  auth_time: EpochMs | null;
}

export interface OAuthSigningKeysTable {
  id: Generated<number>;
  /** RFC 7638 thumbprint of the public key. */
  kid: string;
  alg: string;
  /** 1 for the first key of an algorithm, +1 per rotation; unique per algorithm. */
  generation: number;
  /** The public key as a JWK (JSON). */
  public_jwk: string;
  /** PKCS#8, sealed with the key-encryption key when one is configured (see domain/key-sealing). */
  private_key: string;
  created_at: EpochMs;
}

export interface OAuthDeviceGrantsTable {
  id: Generated<number>;
  device_code_digest: string;
  /** Digest of the normalized user code (upper case, no dash). */
  user_code_digest: string;
  application_id: number;
  scopes: string;
  created_at: EpochMs;
  /** Seconds. */
  expires_in: number;
  /** Seconds the client must wait between polls; grows by 5 on every slow_down. */
  poll_interval: number;
  last_polled_at: EpochMs | null;
  /** `pending`, `approved` or `denied`. */
  status: string;
  user_id: number | null;
  auth_time: EpochMs | null;
  decided_at: EpochMs | null;
  /** Set once, atomically, when the tokens are issued. */
  consumed_at: EpochMs | null;
  /** The family of the tokens issued (revoked if the device code is presented again). */
  family_id: string | null;
}

export interface WebSessionsTable {
  id: Generated<number>;
  id_digest: string;
  user_id: number | null;
  /** Password checked, second factor still to come. */
  pending_user_id: number | null;
  /**
   * No longer written: the path to return to after sign-in travels in a signed cookie (web/), so
   * anonymous visitors store nothing. Kept until a migration drops it.
   */
  return_to: string | null;
  created_at: EpochMs;
  expires_at: EpochMs;
}

export interface AuthThrottleTable {
  /** `<kind>:<key>`, e.g. `account:user:7` or `address:203.0.113.9`. */
  key: string;
  /** Failed attempts in the window. */
  failures: number;
  /** Attempts reserved and not yet settled (their secret is being verified). */
  pending: Generated<number>;
  window_start: EpochMs;
}

export interface ApiRateLimitTable {
  /** Whose budget: `user:<id>` or `ip:<address>`. */
  key: string;
  /** Requests counted in the window. */
  hits: number;
  window_start: EpochMs;
}

export interface ServerSecretsTable {
  /** e.g. `cookie`: the key @fastify/cookie signs the web face's cookies with. */
  name: string;
  value: string;
  created_at: EpochMs;
}

export interface IdempotencyKeysTable {
  id: Generated<number>;
  user_id: number;
  idempotency_key: string;
  /** `METHOD path` of the first request. */
  request: string;
  body_digest: string;
  status: number;
  /** The first answer's JSON body. */
  response: string;
  created_at: EpochMs;
}

/** One row (id 1): moved by triggers on every write to what event listings show (migration 009). */
export interface ListingVersionTable {
  id: number;
  value: number;
  /** The database's clock at the last move, epoch ms. */
  changed_at: EpochMs;
}

/** A user's feed token: derived from the generation; stored only as its digest (migration 009). */
export interface FeedTokensTable {
  user_id: number;
  generation: number;
  token_digest: string;
  created_at: EpochMs;
}

export interface ProjectHooksTable {
  id: Generated<number>;
  project_id: number;
  url: string;
  /** The X-Gitlab-Token to send, in an envelope (domain/webhook-tokens); never returned. */
  token: string | null;
  name: Generated<string>;
  description: Generated<string>;
  push_events: Flag;
  tag_push_events: Flag;
  issues_events: Flag;
  confidential_issues_events: Flag;
  merge_requests_events: Flag;
  note_events: Flag;
  confidential_note_events: Flag;
  member_events: Flag;
  enable_ssl_verification: Flag;
  recent_failures: Generated<number>;
  backoff_count: Generated<number>;
  disabled_until: EpochMs | null;
  permanently_disabled: Generated<Flag>;
  created_at: EpochMs;
  /** Not tried before then (domain/webhook-failures): the failing hook's next try. */
  retry_at: EpochMs | null;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  hook_id: number;
  event_id: number | null;
  event_header: string;
  trigger: string;
  event_uuid: string;
  idempotency_key: string;
  payload: string;
  /** `pending`, `delivering`, `delivered` or `failed`. */
  status: string;
  attempts: Generated<number>;
  next_attempt_at: EpochMs;
  claimed_until: EpochMs | null;
  claimed_by: string | null;
  request_headers: string | null;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
  created_at: EpochMs;
  attempted_at: EpochMs | null;
  /** Asked for by hand (test, resend): sent at once, whatever the hook's state. */
  manual: Generated<Flag>;
}

/** Per-project counters of changes that alter existing listings (migration 013); 0 = any project. */
export interface ListingEpochsTable {
  project_id: number;
  epoch: number;
}

/**
 * Events per (project, author, action, target type), kept by triggers (migration 017): a listing's
 * count sums these instead of walking its events. `target_type` is '' for events without one.
 */
export interface EventTalliesTable {
  project_id: number;
  author_id: number;
  action: number;
  target_type: string;
  n: number;
}

/** The same per issue (events with an issue only): what confidentiality hides is read from these. */
export interface IssueEventTalliesTable extends EventTalliesTable {
  issue_id: number;
}

/** The same for events of confidential issues of their project (migration 018). */
export type ConfidentialTalliesTable = EventTalliesTable;

/** A user's star on a project (migration 024). */
export interface ProjectStarsTable {
  user_id: number;
  project_id: number;
  created_at: EpochMs;
}

/** A user following another (migration 024); never oneself. */
export interface UserFollowsTable {
  follower_id: number;
  followee_id: number;
  created_at: EpochMs;
}

/**
 * Per user, a counter moved by triggers whenever the user's stars or the follows they make change
 * (migration 024): caches of the user's starred and followed listings compare it. No row = 0.
 */
export interface SocialVersionsTable {
  user_id: number;
  version: number;
}

export interface Database {
  project_stars: ProjectStarsTable;
  user_follows: UserFollowsTable;
  social_versions: SocialVersionsTable;
  event_tallies: EventTalliesTable;
  issue_event_tallies: IssueEventTalliesTable;
  confidential_tallies: ConfidentialTalliesTable;
  listing_version: ListingVersionTable;
  feed_tokens: FeedTokensTable;
  project_hooks: ProjectHooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  listing_epochs: ListingEpochsTable;
  idempotency_keys: IdempotencyKeysTable;
  merge_request_approvals: MergeRequestApprovalsTable;
  /** PostgreSQL only; SQLite keeps API counters in a sidecar file (store/request-counters.ts). */
  api_rate_limit: ApiRateLimitTable;
  auth_throttle: AuthThrottleTable;
  users: UsersTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  issues: IssuesTable;
  merge_requests: MergeRequestsTable;
  milestones: MilestonesTable;
  snippets: SnippetsTable;
  notes: NotesTable;
  events: EventsTable;
  push_event_payloads: PushEventPayloadsTable;
  personal_access_tokens: PersonalAccessTokensTable;
  oauth_applications: OAuthApplicationsTable;
  oauth_access_grants: OAuthAccessGrantsTable;
  oauth_access_tokens: OAuthAccessTokensTable;
  oauth_signing_keys: OAuthSigningKeysTable;
  oauth_device_grants: OAuthDeviceGrantsTable;
  web_sessions: WebSessionsTable;
  server_secrets: ServerSecretsTable;
}

export type UserRow = Selectable<UsersTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type IssueRow = Selectable<IssuesTable>;
export type MergeRequestRow = Selectable<MergeRequestsTable>;
export type MilestoneRow = Selectable<MilestonesTable>;
export type SnippetRow = Selectable<SnippetsTable>;
export type NoteRow = Selectable<NotesTable>;
export type EventRow = Selectable<EventsTable>;
export type PushPayloadRow = Selectable<PushEventPayloadsTable>;
export type PersonalAccessTokenRow = Selectable<PersonalAccessTokensTable>;
export type NewEvent = Insertable<EventsTable>;
export type MemberRow = Selectable<ProjectMembersTable>;
export type ProjectStarRow = Selectable<ProjectStarsTable>;
export type UserFollowRow = Selectable<UserFollowsTable>;
export type OAuthApplicationRow = Selectable<OAuthApplicationsTable>;
export type OAuthGrantRow = Selectable<OAuthAccessGrantsTable>;
export type OAuthTokenRow = Selectable<OAuthAccessTokensTable>;
export type OAuthSigningKeyRow = Selectable<OAuthSigningKeysTable>;
export type OAuthDeviceGrantRow = Selectable<OAuthDeviceGrantsTable>;
export type WebSessionRow = Selectable<WebSessionsTable>;
export type ProjectHookRow = Selectable<ProjectHooksTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
