/**
 * RFC 8628 device authorization: lifetimes and polling interval (GitLab's), the device-code grant
 * type, and user codes — eight letters from a 20-letter alphabet without vowels (§6.1: no 0/O or
 * 1/I to confuse, no words spelled), shown as `WDJB-MJHT` and read back case-insensitively with or
 * without the dash. ~34.6 bits: enough together with the short lifetime and the guess throttle.
 */
import { randomInt } from 'node:crypto';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const DEVICE_CODE_TTL_S = 300;
export const DEVICE_POLL_INTERVAL_S = 5;
/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval, for good. */
export const SLOW_DOWN_STEP_S = 5;
/** Timer jitter forgiven before a poll counts as too fast. */
export const POLL_TOLERANCE_MS = 500;

export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) {
    code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  }
  return formatUserCode(code);
}

export function formatUserCode(normalized: string): string {
  return `${normalized.slice(0, 4)}-${normalized.slice(4)}`;
}

/** What the user typed, as stored (upper case, no separators); null when it cannot be a code. */
export function normalizeUserCode(input: string): string | null {
  if (input.length > 32) return null;
  const code = input.toUpperCase().replace(/[\s-]+/g, '');
  if (code.length !== USER_CODE_LENGTH) return null;
  for (const c of code) if (!USER_CODE_ALPHABET.includes(c)) return null;
  return code;
}
