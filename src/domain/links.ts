/**
 * Links and names derived from rows, shared by every face that shows them (REST entities, GraphQL
 * fields): avatar and web URLs, a project's clone URL, a push's qualified ref.
 */
import { createHash } from 'node:crypto';
import type { RefType } from './vocabulary.js';

/** GitLab's default avatar when none is uploaded: a Gravatar identicon of the e-mail. */
export function avatarUrl(user: { avatar_url: string | null; email: string }): string {
  if (user.avatar_url) return user.avatar_url;
  const hash = createHash('md5').update(user.email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`;
}

export function userWebUrl(externalUrl: string, user: { username: string }): string {
  return `${externalUrl}/${user.username}`;
}

export function projectWebUrl(externalUrl: string, project: { full_path: string }): string {
  return `${externalUrl}/${project.full_path}`;
}

/** The SSH clone URL GitLab shows in push data (`git@host:group/project.git`). */
export function repositorySshUrl(externalUrl: string, project: { full_path: string }): string {
  const host = new URL(externalUrl).host.replace(/:\d+$/, '');
  return `git@${host}:${project.full_path}.git`;
}

/** `refs/heads/main` or `refs/tags/v1` from a stored short ref. */
export function qualifiedRef(refType: RefType, ref: string): string {
  return `${refType === 'tag' ? 'refs/tags/' : 'refs/heads/'}${ref}`;
}
