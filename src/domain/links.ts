/**
 * Links and names derived from views, shared by every face that shows them (REST entities, GraphQL
 * fields): avatar and web URLs, a project's clone URL, a push's qualified ref.
 */
import { createHash } from 'node:crypto';
import type { RefType } from './vocabulary.js';

/** GitLab's default avatar when none is uploaded: a Gravatar identicon of the e-mail. */
export function avatarUrl(user: { avatarUrl: string | null; email: string }): string {
  if (user.avatarUrl) return user.avatarUrl;
  const hash = createHash('md5').update(user.email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`;
}

export function userWebUrl(externalUrl: string, user: { username: string }): string {
  return `${externalUrl}/${user.username}`;
}

export function projectWebUrl(externalUrl: string, project: { fullPath: string }): string {
  return `${externalUrl}/${project.fullPath}`;
}

/** The SSH clone URL GitLab shows in push data (`git@host:group/project.git`). */
export function repositorySshUrl(externalUrl: string, project: { fullPath: string }): string {
  const host = new URL(externalUrl).host.replace(/:\d+$/, '');
  return `git@${host}:${project.fullPath}.git`;
}

/** `refs/heads/main` or `refs/tags/v1` from a stored short ref. */
export function qualifiedRef(refType: RefType, ref: string): string {
  return `${refType === 'tag' ? 'refs/tags/' : 'refs/heads/'}${ref}`;
}
