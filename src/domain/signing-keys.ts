/**
 * Which signing keys sign and which are published. Per algorithm the newest generation signs; an
 * older one stays in the JWKS until every ID token it signed has expired (the lifetime plus a
 * margin for clock skew), counted from the moment its successor appeared.
 */
import { ID_TOKEN_TTL_S } from './oidc.js';

/** Clock skew allowed to relying parties when they check `exp`. */
const SKEW_S = 300;
export const KEY_RETENTION_MS = (ID_TOKEN_TTL_S + SKEW_S) * 1000;

export interface KeyGeneration {
  kid: string;
  alg: string;
  generation: number;
  createdAt: number;
}

/** Keys to list in the JWKS at `now`: the active ones and those still verifying live tokens. */
export function publishedKeys<K extends KeyGeneration>(keys: readonly K[], now: number): K[] {
  return keys.filter((key) => {
    const successor = keys
      .filter((k) => k.alg === key.alg && k.generation > key.generation)
      .reduce<number | null>(
        (min, k) => (min === null ? k.createdAt : Math.min(min, k.createdAt)),
        null,
      );
    return successor === null || now < successor + KEY_RETENTION_MS;
  });
}
