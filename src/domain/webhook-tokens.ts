/**
 * A hook's secret token (sent as `X-Gitlab-Token`): sealed at rest with the key-encryption key
 * (domain/key-sealing), bound to the URL it was given for, and dropped when the URL changes
 * without a new token, as GitLab does: whoever may edit a hook may point it elsewhere, but must
 * not learn the token someone else set for the old receiver.
 */
import { SealedKeyError, seal, unseal } from './key-sealing.js';

/**
 * The associated data of a sealed token: its URL. A sealed token copied to another hook, or left
 * behind by a URL changed underneath it, cannot be opened, so it never travels to a URL it was
 * not given for.
 */
function associated(url: string): string {
  return `webhook token for ${url}`;
}

export function sealHookToken(token: string, kek: Buffer | null, url: string): string {
  return seal(token, kek, associated(url));
}

/** The token to send, or a SealedKeyError saying why it cannot be read. */
export function openHookToken(
  envelope: string,
  kek: Buffer | null,
  url: string,
  hookId: number,
): string {
  try {
    return unseal(envelope, kek, associated(url), `the secret token of hook ${hookId}`);
  } catch (error) {
    if (!(error instanceof SealedKeyError) || !/cannot be decrypted/.test(error.message)) {
      throw error;
    }
    throw new SealedKeyError(
      `the secret token of hook ${hookId} cannot be decrypted: it was sealed with another key-encryption key, or for another URL`,
    );
  }
}

/** What an edit does to the stored token. */
export type TokenChange = { kind: 'keep' } | { kind: 'clear' } | { kind: 'set'; token: string };

/**
 * GitLab's rule: a token given is set (an empty one clears it); no token with a changed URL
 * clears it; no token and the same URL keeps it.
 */
export function tokenChange(
  currentUrl: string,
  input: { url?: string | undefined; token?: string | null | undefined },
): TokenChange {
  if (input.token !== undefined) {
    return input.token ? { kind: 'set', token: input.token } : { kind: 'clear' };
  }
  if (input.url !== undefined && input.url !== currentUrl) return { kind: 'clear' };
  return { kind: 'keep' };
}
