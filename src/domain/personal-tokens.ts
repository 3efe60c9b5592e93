/** What makes a personal access token request valid, for the web page and the CLI alike. */
import { OIDC_SCOPES, parseScopeList, type Scope } from './scopes.js';

export const PAT_PREFIX = 'glpat-';
const CALENDAR_DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface PersonalTokenRequest {
  name: string;
  /** Scope names as given (a list, or one space/comma-separated string). */
  scopes: readonly string[] | string;
  /** `YYYY-MM-DD`, or empty/undefined for a token that never expires. */
  expiresAt?: string | null | undefined;
}

export interface ValidPersonalToken {
  name: string;
  scopes: Scope[];
  expiresAt: string | null;
}

/**
 * Returns the cleaned request or the list of problems. `today` is `YYYY-MM-DD` (UTC): a token must
 * expire after today, since GitLab tokens die at midnight UTC at the start of their expiry date.
 */
export function validatePersonalToken(
  request: PersonalTokenRequest,
  today: string,
): { ok: ValidPersonalToken } | { problems: string[] } {
  const problems: string[] = [];
  const name = request.name.trim();
  if (name === '' || name.length > 255)
    problems.push('Give the token a name (up to 255 characters).');
  const parsed = parseScopeList(
    typeof request.scopes === 'string' ? request.scopes : request.scopes.join(' '),
  );
  // OpenID Connect scopes belong to OAuth applications; on a personal token they are unknown.
  const oidc = (s: Scope) => (OIDC_SCOPES as readonly string[]).includes(s);
  const scopes = parsed.scopes.filter((s) => !oidc(s));
  const unknown = [...parsed.unknown, ...parsed.scopes.filter(oidc)];
  if (unknown.length > 0) problems.push(`scopes has unknown scope ${unknown.join(', ')}`);
  else if (scopes.length === 0) problems.push('Choose at least one scope.');
  const expiry = (request.expiresAt ?? '').trim();
  if (expiry !== '') {
    const parsed = Date.parse(`${expiry}T00:00:00Z`);
    if (
      !CALENDAR_DAY.test(expiry) ||
      Number.isNaN(parsed) ||
      new Date(parsed).toISOString().slice(0, 10) !== expiry
    ) {
      problems.push('Enter the expiration date as YYYY-MM-DD.');
    } else if (expiry <= today) {
      problems.push('Choose an expiration date after today.');
    }
  }
  if (problems.length > 0) return { problems };
  return { ok: { name, scopes, expiresAt: expiry === '' ? null : expiry } };
}
