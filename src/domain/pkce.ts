/** PKCE (RFC 7636): syntax of verifiers and challenges, supported methods, verification. */
import { createHash } from 'node:crypto';
import { secretsEqual } from './secrets.js';

/** Methods are case-sensitive (`s256` is not `S256`). */
export const PKCE_METHODS = ['S256', 'plain'] as const;
export type PkceMethod = (typeof PKCE_METHODS)[number];

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. The same ABNF bounds challenges. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

export function isPkceMethod(value: string): value is PkceMethod {
  return (PKCE_METHODS as readonly string[]).includes(value);
}

export function isValidVerifier(value: string): boolean {
  return PKCE_VALUE.test(value);
}

export const isValidChallenge = isValidVerifier;

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function verifyPkce(method: PkceMethod, challenge: string, verifier: string): boolean {
  const derived = method === 'S256' ? s256Challenge(verifier) : verifier;
  return secretsEqual(derived, challenge);
}
