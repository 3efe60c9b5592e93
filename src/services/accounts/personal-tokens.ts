/** Issuing personal access tokens: the profile page, `tokens create` and the demo token. */
import { ValidationError } from '../../domain/errors.js';
import {
  PAT_PREFIX,
  type PersonalTokenRequest,
  validatePersonalToken,
} from '../../domain/personal-tokens.js';
import { digest, randomSecret } from '../../domain/secrets.js';
import type { PersonalAccessTokenRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';

/** `glpat-` and 160 random bits (base64url): shown once, stored as its SHA-256 digest. */
export function newPersonalAccessToken(): string {
  return `${PAT_PREFIX}${randomSecret(20)}`;
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Validates the request and stores the token; the plaintext is returned once. */
export async function issuePersonalToken(
  store: Store,
  clock: Clock,
  userId: number,
  request: PersonalTokenRequest,
): Promise<{ token: string; row: PersonalAccessTokenRow }> {
  const result = validatePersonalToken(request, utcDay(clock.now()));
  if ('problems' in result) throw new ValidationError(result.problems);
  const token = newPersonalAccessToken();
  const row = await store.tokens.create({
    userId,
    name: result.ok.name,
    tokenDigest: digest(token),
    scopes: result.ok.scopes,
    expiresAt: result.ok.expiresAt,
    createdAt: clock.now(),
  });
  return { token, row };
}
