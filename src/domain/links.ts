/**
 * Links and names derived from views, shared by every face that shows them (REST entities, GraphQL
 * fields, webhooks): avatar and web URLs, a project's clone URL, a push's qualified ref.
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

/** Where `ssh_url_to_repo` points: a host and a port. */
export interface SshEndpoint {
  host: string;
  port: number;
}

/** Where a project's links point: the external URL, and the SSH endpoint of its clone URL. */
export interface ProjectLinks {
  externalUrl: string;
  ssh: SshEndpoint;
}

/** The configured SSH host, or else the external URL's host name (its HTTP port left behind). */
export function sshEndpointOf(settings: {
  externalUrl: string;
  sshHost: string | null;
  sshPort: number;
}): SshEndpoint {
  return {
    host: settings.sshHost ?? new URL(settings.externalUrl).hostname,
    port: settings.sshPort,
  };
}

/** The project links of this configuration (read per request: tests settle the URL late). */
export function projectLinksOf(config: {
  externalUrl: string;
  sshHost: string | null;
  sshPort: number;
}): ProjectLinks {
  return { externalUrl: config.externalUrl, ssh: sshEndpointOf(config) };
}

/**
 * GitLab's clone URL over SSH, everywhere it shows one (the project entity's `ssh_url_to_repo`,
 * push data's and webhooks' repository URLs): the scp-like `git@host:path.git` on port 22, and
 * the URL form `ssh://git@host:port/path.git` on any other port (scp-like syntax cannot carry a
 * port).
 */
export function repositorySshUrl(ssh: SshEndpoint, project: { fullPath: string }): string {
  return ssh.port === 22
    ? `git@${ssh.host}:${project.fullPath}.git`
    : `ssh://git@${ssh.host}:${ssh.port}/${project.fullPath}.git`;
}

/** `refs/heads/main` or `refs/tags/v1` from a stored short ref. */
export function qualifiedRef(refType: RefType, ref: string): string {
  return `${refType === 'tag' ? 'refs/tags/' : 'refs/heads/'}${ref}`;
}
