/**
 * Token scopes and which endpoints accept which (GitLab's api_guard). `read_*` scopes only allow
 * safe methods.
 */
import { InsufficientScopeError } from './errors.js';

/** Scopes that reach the API. */
export const API_SCOPES = ['api', 'read_api', 'read_user'] as const;
/**
 * GitLab's scope for pushing over HTTP. pulsegate stores no repository: here it records pushes
 * (`POST /projects/:id/pushes`, what a post-receive hook sends) and reaches nothing else, so the
 * token a hook keeps on disk can neither read nor write the rest of the API (docs/pushes.md).
 */
export const REPOSITORY_SCOPES = ['write_repository'] as const;
/** What a personal access token may carry. */
export const PERSONAL_TOKEN_SCOPES = [...API_SCOPES, ...REPOSITORY_SCOPES] as const;
/** OpenID Connect: identity only (ID token, userinfo), never the API. OAuth applications only. */
export const OIDC_SCOPES = ['openid', 'profile', 'email'] as const;
export const SCOPES = [...API_SCOPES, ...REPOSITORY_SCOPES, ...OIDC_SCOPES] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Scope sets per resource family; order is GitLab's registration order (shown in 403 bodies). */
export const ENDPOINT_SCOPES = {
  /** `/events`, `/users/:id/events`, `/user`, GraphQL user-centric reads. */
  user: ['read_user', 'api', 'read_api'],
  /** `/projects/:id/events` and project data. */
  project: ['api', 'read_api'],
  /**
   * `POST /projects/:id/pushes`: the hook's token only. Not `api`, though GitLab lets `api` push
   * over HTTP: a recorded push is a claim nobody can check here (docs/pushes.md), and GitLab's own
   * `POST /internal/post_receive` takes no user token at all.
   */
  push: ['write_repository'],
} as const satisfies Record<string, readonly Scope[]>;
export type EndpointScopes = (typeof ENDPOINT_SCOPES)[keyof typeof ENDPOINT_SCOPES];

const READ_ONLY: ReadonlySet<Scope> = new Set(['read_api', 'read_user']);

export function scopeAllows(scope: Scope, safeMethod: boolean): boolean {
  return safeMethod || !READ_ONLY.has(scope);
}

/** Throws `insufficient_scope` unless one granted scope is accepted here for this method. */
export function requireScope(
  granted: readonly string[],
  accepted: readonly Scope[],
  safeMethod: boolean,
): void {
  const ok = granted.some(
    (scope) => isScope(scope) && accepted.includes(scope) && scopeAllows(scope, safeMethod),
  );
  if (!ok) throw new InsufficientScopeError(accepted);
}

/** Parses a space- or comma-separated scope list; unknown names are reported, not dropped. */
export function parseScopeList(value: string): { scopes: Scope[]; unknown: string[] } {
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const item of value.split(/[\s,]+/).filter(Boolean)) {
    if (isScope(item)) {
      if (!scopes.includes(item)) scopes.push(item);
    } else unknown.push(item);
  }
  return { scopes, unknown };
}
