/**
 * OpenID Connect rules: ID token lifetime and algorithms, the token hash (`at_hash`), and which
 * identity claims each scope releases (GitLab's claim names, OIDC Core §5.4 scope grouping).
 */
import { createHash } from 'node:crypto';
import { avatarUrl, userWebUrl } from './links.js';
import type { Scope } from './scopes.js';

/** ID tokens are checked once, on receipt; an hour covers slow clients and skewed clocks. */
export const ID_TOKEN_TTL_S = 3600;

export const ID_TOKEN_ALGS = ['RS256', 'ES256'] as const;
export type IdTokenAlg = (typeof ID_TOKEN_ALGS)[number];
export const DEFAULT_ID_TOKEN_ALG: IdTokenAlg = 'RS256';

export function isIdTokenAlg(value: string): value is IdTokenAlg {
  return (ID_TOKEN_ALGS as readonly string[]).includes(value);
}

/** OIDC Core §3.1.3.6: base64url of the left half of the hash the signature algorithm uses. */
export function tokenHash(token: string, alg: IdTokenAlg): string {
  // Both supported algorithms use SHA-256.
  void alg;
  const full = createHash('sha256').update(token, 'ascii').digest();
  return full.subarray(0, full.length / 2).toString('base64url');
}

export const PROFILE_CLAIMS = [
  'name',
  'nickname',
  'preferred_username',
  'profile',
  'picture',
  'groups',
] as const;
export const EMAIL_CLAIMS = ['email', 'email_verified'] as const;
export const CLAIMS_SUPPORTED = [
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'at_hash',
  ...PROFILE_CLAIMS,
  ...EMAIL_CLAIMS,
] as const;

export interface IdentitySource {
  user: {
    id: number;
    username: string;
    name: string;
    email: string;
    avatar_url: string | null;
  };
  /** Full paths of the groups (namespaces other than personal ones) the user is a member of. */
  groups: readonly string[];
  externalUrl: string;
}

/**
 * The claims a token's scopes release. `openid` alone gives `sub`; `profile` the public profile;
 * `email` the address. No `website`: pulsegate keeps none, and OIDC Core §5.3.2 asks to omit a
 * claim rather than send it empty. `email_verified` is false: pulsegate never confirms addresses.
 */
export function identityClaims(
  source: IdentitySource,
  scopes: readonly Scope[],
): Record<string, unknown> {
  const { user } = source;
  const claims: Record<string, unknown> = { sub: String(user.id) };
  if (scopes.includes('profile')) {
    Object.assign(claims, {
      name: user.name,
      nickname: user.username,
      preferred_username: user.username,
      profile: userWebUrl(source.externalUrl, user),
      picture: avatarUrl({ avatarUrl: user.avatar_url, email: user.email }),
      groups: [...source.groups],
    });
  }
  if (scopes.includes('email')) {
    Object.assign(claims, { email: user.email, email_verified: false });
  }
  return claims;
}
