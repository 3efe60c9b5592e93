/**
 * GitLab's entities for the navigation reads: API::Entities::User (what anyone may see of a user),
 * Namespace and Group. pulsegate keeps no profile fields (bio, location, …), so those carry
 * GitLab's values for "none"; a group's description and avatar likewise. Nothing is said that
 * pulsegate cannot back: no member counts, no group settings. Follower counts are real (stars and
 * follows, migration 024).
 */
import type { FollowCounts, GroupView, NamespaceView } from '../services/navigation/navigation.js';
import type { UserView } from '../services/views.js';
import { avatarUrl, iso, presentUserBasic, profileFields, userWebUrl } from './present.js';

/**
 * API::Entities::User: the basic fields, the creation time only to those who may read the
 * profile (not a private or blocked one, unless it is theirs or they are an administrator).
 */
export function presentUser(
  user: UserView,
  profileReadable: boolean,
  externalUrl: string,
  follows: FollowCounts | null,
) {
  return {
    ...presentUserBasic(user, externalUrl),
    ...(profileReadable ? { created_at: iso(user.createdAt) } : {}),
    ...profileFields(profileReadable ? follows : null),
  };
}

/** What an administrator sees of any user (UserDetailsWithAdmin's fields pulsegate has). */
export function presentUserForAdmin(
  user: UserView,
  externalUrl: string,
  follows: FollowCounts | null = null,
) {
  return {
    ...presentUserBasic(user, externalUrl),
    created_at: iso(user.createdAt),
    ...profileFields(follows),
    email: user.email,
    two_factor_enabled: user.twoFactorEnabled,
    private_profile: user.privateProfile,
    is_admin: user.admin,
  };
}

export function groupWebUrl(externalUrl: string, group: { fullPath: string }): string {
  return `${externalUrl}/groups/${group.fullPath}`;
}

/** API::Entities::Namespace (`kind` user or group). */
export function presentNamespace(namespace: NamespaceView, externalUrl: string) {
  if (namespace.kind === 'user') {
    const { user } = namespace;
    return {
      id: namespace.id,
      name: user.name,
      path: user.username,
      kind: 'user',
      full_path: user.username,
      parent_id: null,
      avatar_url: avatarUrl(user),
      web_url: userWebUrl(externalUrl, user),
    };
  }
  return {
    id: namespace.id,
    name: namespace.name,
    path: namespace.path,
    kind: 'group',
    full_path: namespace.fullPath,
    parent_id: namespace.parentId,
    avatar_url: null,
    web_url: groupWebUrl(externalUrl, namespace),
  };
}

/** API::Entities::Group, the fields pulsegate can back. */
export function presentGroup(group: GroupView, externalUrl: string) {
  return {
    id: group.id,
    web_url: groupWebUrl(externalUrl, group),
    name: group.name,
    path: group.path,
    description: '',
    visibility: group.visibility,
    avatar_url: null,
    full_name: group.fullPath.split('/').join(' / '),
    full_path: group.fullPath,
    parent_id: group.parentId,
  };
}
