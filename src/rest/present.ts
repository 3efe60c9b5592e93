/** GitLab's REST entities (lib/api/entities): the JSON shapes, key order included. */
import type { EventView, PushView } from '../services/activity/activity.js';
import type { FollowCounts } from '../services/navigation/navigation.js';
import type { NoteView, UserView } from '../services/views.js';
import {
  type ProjectLinks,
  avatarUrl,
  projectWebUrl,
  qualifiedRef,
  repositorySshUrl,
  userWebUrl,
} from '../domain/links.js';
import { BLANK_SHA } from '../domain/vocabulary.js';

export { avatarUrl, projectWebUrl, userWebUrl };

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function presentUserBasic(user: UserView, externalUrl: string) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    locked: false,
    avatar_url: avatarUrl(user),
    web_url: userWebUrl(externalUrl, user),
  };
}

/** The profile fields pulsegate does not keep, as GitLab shows them empty. */
export const EMPTY_PROFILE = {
  bio: '',
  location: '',
  public_email: null,
  linkedin: '',
  twitter: '',
  discord: '',
  website_url: '',
  organization: '',
  job_title: '',
  pronouns: null,
  bot: false,
  work_information: null,
  local_time: null,
};

/**
 * The profile fields of API::Entities::User, with `followers`, `following` and `is_followed`
 * where GitLab puts them (before `local_time`) when the profile is readable; `is_followed` only for
 * a signed-in viewer.
 */
export function profileFields(follows: FollowCounts | null) {
  const { local_time, ...before } = EMPTY_PROFILE;
  if (!follows) return EMPTY_PROFILE;
  return {
    ...before,
    followers: follows.followers,
    following: follows.following,
    ...(follows.isFollowed === null ? {} : { is_followed: follows.isFollowed }),
    local_time,
  };
}

/** `GET /user`: UserPublic (what a token's owner sees about themselves). */
export function presentCurrentUser(
  user: UserView,
  externalUrl: string,
  follows: FollowCounts | null,
) {
  return {
    ...presentUserBasic(user, externalUrl),
    created_at: iso(user.createdAt),
    ...profileFields(follows),
    last_sign_in_at: null,
    confirmed_at: iso(user.createdAt),
    last_activity_on: null,
    email: user.email,
    theme_id: 1,
    color_scheme_id: 1,
    projects_limit: 100000,
    current_sign_in_at: null,
    identities: [],
    can_create_group: true,
    can_create_project: true,
    two_factor_enabled: user.twoFactorEnabled,
    external: false,
    private_profile: user.privateProfile,
    commit_email: user.email,
    is_admin: user.admin,
  };
}

/** API::Entities::Note: inside an event's `note`, and as the notes API's entity. */
export function presentNote(note: NoteView, externalUrl: string) {
  return {
    id: note.id,
    type: null,
    body: note.body,
    attachment: note.attachment,
    author: note.author ? presentUserBasic(note.author, externalUrl) : null,
    created_at: iso(note.createdAt),
    updated_at: iso(note.updatedAt),
    system: note.system,
    noteable_id: note.noteableId,
    noteable_type: note.noteableType,
    project_id: note.projectId,
    resolvable: false,
    confidential: false,
    internal: false,
    imported: false,
    imported_from: 'none',
    noteable_iid: note.noteableIid,
    commands_changes: {},
  };
}

const PUSH_DATA_COMMITS = 20;

/** The legacy push-hook `data` object the original specification shows. */
function presentPushData(event: EventView, push: PushView, links: ProjectLinks) {
  const project = event.project;
  return {
    before: push.commitFrom ?? BLANK_SHA,
    after: push.commitTo ?? BLANK_SHA,
    ref: qualifiedRef(push.refType, push.ref),
    user_id: event.authorId,
    user_name: event.author?.name ?? '',
    repository: {
      name: project.name,
      url: repositorySshUrl(links.ssh, project),
      description: project.description,
      homepage: projectWebUrl(links.externalUrl, project),
    },
    commits: push.commits.slice(-PUSH_DATA_COMMITS),
    total_commits_count: push.commitCount,
  };
}

/** `push_data` of an event (REST events list and the push endpoint). */
export function presentPushSummary(push: PushView) {
  return {
    commit_count: push.commitCount,
    action: push.action,
    ref_type: push.refType,
    commit_from: push.commitFrom,
    commit_to: push.commitTo,
    ref: push.ref,
    commit_title: push.commitTitle,
    ref_count: null,
  };
}

export function presentEvent(event: EventView, links: ProjectLinks) {
  const { externalUrl } = links;
  const out: Record<string, unknown> = {
    id: event.id,
    title: null,
    project_id: event.projectId,
    action_name: event.actionName,
    target_id: event.targetId,
    target_iid: event.targetIid,
    target_type: event.targetType,
    author_id: event.authorId,
    data: event.push ? presentPushData(event, event.push, links) : null,
    target_title: event.targetTitle,
    created_at: iso(event.createdAt),
  };
  if (event.note) out.note = presentNote(event.note, externalUrl);
  if (event.author) out.author = presentUserBasic(event.author, externalUrl);
  out.imported = false;
  out.imported_from = 'none';
  if (event.push) out.push_data = presentPushSummary(event.push);
  out.author_username = event.author?.username ?? null;
  return out;
}
