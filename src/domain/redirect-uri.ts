/**
 * Redirect-URI policy (RFC 9700 §2.1, §4.1.3; RFC 8252 §7.3): registered URIs are absolute, have no
 * fragment, use https — or http on a loopback host only — and never a script-like scheme. A
 * presented URI matches a registered one by exact string comparison; the single exception is the
 * port of an http loopback IP literal (127.0.0.1, [::1]), which native apps pick at run time.
 */

const LOOPBACK_IPS = new Set(['127.0.0.1', '[::1]']);
const LOOPBACK_HOSTS = new Set([...LOOPBACK_IPS, 'localhost']);
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

/** Null when acceptable for registration, otherwise the reason shown on the form. */
export function redirectUriProblem(value: string): string | null {
  if (value.length > 2000) return 'is too long';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URI';
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return 'uses a forbidden scheme';
  if (value.includes('#')) return 'cannot contain a fragment';
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return 'must use https (http only for loopback addresses)';
  }
  if (/\s/.test(value)) return 'cannot contain whitespace';
  return null;
}

/** The registered URI the presented one matches, or null. */
export function matchRedirectUri(registered: readonly string[], presented: string): string | null {
  for (const candidate of registered) {
    if (candidate === presented) return candidate;
  }
  for (const candidate of registered) {
    if (loopbackPortVariant(candidate, presented)) return candidate;
  }
  return null;
}

function loopbackPortVariant(registered: string, presented: string): boolean {
  let a: URL;
  let b: URL;
  try {
    a = new URL(registered);
    b = new URL(presented);
  } catch {
    return false;
  }
  if (a.protocol !== 'http:' || !LOOPBACK_IPS.has(a.hostname)) return false;
  // Everything but the port must be byte-identical: rebuild the presented URI with the
  // registered port and compare the strings, so normalisation never widens the match.
  const authority = (u: URL) => `${u.protocol}//${u.hostname}`;
  const rest = (raw: string, u: URL) =>
    raw.slice(authority(u).length + (u.port ? u.port.length + 1 : 0));
  if (!presented.startsWith(authority(b)) || !registered.startsWith(authority(a))) return false;
  return authority(a) === authority(b) && rest(registered, a) === rest(presented, b);
}

/**
 * The client's redirect URI with response parameters added to its query (RFC 6749 §4.1.2: keep
 * the registered query, never touch the fragment — registered URIs have none).
 */
export function withResponseParams(
  redirectUri: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url.toString();
}
