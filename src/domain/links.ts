/**
 * Links and names derived from views, shared by every face that shows them (REST entities, GraphQL
 * fields): avatar and web URLs, a project's clone URL, a push's qualified ref.
 */
import { createHash } from 'node:crypto';
import type { RefType } from './vocabulary.js';

/**
 * Gravatar URLs by e-mail: every event presents its author, and a page shows few distinct
 * authors, so the hash is computed once per e-mail rather than once per event. Bounded.
 */
const GRAVATARS_MAX = 10_000;
const gravatars = new Map<string, string>();

/** GitLab's default avatar when none is uploaded: a Gravatar identicon of the e-mail. */
export function avatarUrl(user: { avatarUrl: string | null; email: string }): string {
  if (user.avatarUrl) return user.avatarUrl;
  let url = gravatars.get(user.email);
  if (url === undefined) {
    const hash = createHash('md5').update(user.email.trim().toLowerCase()).digest('hex');
    url = `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`;
    if (gravatars.size >= GRAVATARS_MAX) gravatars.clear();
    gravatars.set(user.email, url);
  }
  return url;
}

export function userWebUrl(externalUrl: string, user: { username: string }): string {
  return `${externalUrl}/${user.username}`;
}

export function projectWebUrl(externalUrl: string, project: { fullPath: string }): string {
  return `${externalUrl}/${project.fullPath}`;
}

/** The SSH clone URL GitLab shows in push data (`git@host:group/project.git`). */
export function repositorySshUrl(externalUrl: string, project: { fullPath: string }): string {
  return `git@${sshHost(externalUrl)}:${project.fullPath}.git`;
}

/** The external URL's host without its port; parsed once (it is configuration). */
let sshHostOf: { externalUrl: string; host: string } | null = null;
function sshHost(externalUrl: string): string {
  if (sshHostOf?.externalUrl !== externalUrl) {
    sshHostOf = { externalUrl, host: new URL(externalUrl).host.replace(/:\d+$/, '') };
  }
  return sshHostOf.host;
}

/** `refs/heads/main` or `refs/tags/v1` from a stored short ref. */
export function qualifiedRef(refType: RefType, ref: string): string {
  return `${refType === 'tag' ? 'refs/tags/' : 'refs/heads/'}${ref}`;
}
