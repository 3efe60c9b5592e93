/**
 * Sealing secrets at rest (private signing keys, webhook tokens): AES-256-GCM under a key derived
 * from the configured key-encryption key, one derived key per purpose, with associated data that
 * ties a sealed value to its place (a key's id, a hook's URL) so it cannot be moved elsewhere.
 * Without a key-encryption key the envelope is marked `plain` and only the database's own
 * protection (file permissions, access control, backups) guards it.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const SEALED = 'sealed.v1';
const PLAIN = 'plain.v1';

/** A configured secret is stretched into exactly 256 bits; it must carry that much entropy. */
export const KEY_ENCRYPTION_KEY_MIN_LENGTH = 32;

/** The stored private key cannot be read with the configuration at hand. */
export class SealedKeyError extends Error {}

export type SealingPurpose = 'oauth signing keys' | 'webhook tokens';

export function keyEncryptionKey(
  secret: string,
  purpose: SealingPurpose = 'oauth signing keys',
): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'pulsegate', purpose, 32));
}

export function seal(plaintext: string, kek: Buffer | null, associated: string): string {
  if (kek === null) return `${PLAIN}.${Buffer.from(plaintext, 'utf8').toString('base64url')}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const parts = [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url'));
  return `${SEALED}.${parts.join('.')}`;
}

export function isSealed(envelope: string): boolean {
  return envelope.startsWith(`${SEALED}.`);
}

export function isPlain(envelope: string): boolean {
  return envelope.startsWith(`${PLAIN}.`);
}

/** `what` names the secret in errors (`signing key <kid>`, `the token of hook 3`). */
export function unseal(
  envelope: string,
  kek: Buffer | null,
  associated: string,
  what = `signing key ${associated}`,
): string {
  if (isPlain(envelope)) {
    return Buffer.from(envelope.slice(PLAIN.length + 1), 'base64url').toString('utf8');
  }
  if (!isSealed(envelope)) throw new SealedKeyError(`${what}: unknown format`);
  if (kek === null) {
    throw new SealedKeyError(
      `${what} is encrypted: configure the key-encryption key it was sealed with`,
    );
  }
  const [iv, body, tag] = envelope
    .slice(SEALED.length + 1)
    .split('.')
    .map((part) => Buffer.from(part, 'base64url'));
  try {
    const decipher = createDecipheriv('aes-256-gcm', kek, iv!);
    decipher.setAAD(Buffer.from(associated, 'utf8'));
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedKeyError(`${what} cannot be decrypted: wrong key-encryption key`);
  }
}
