/**
 * Sealing private signing keys at rest: AES-256-GCM under a key derived from the configured
 * key-encryption key, with the key id as associated data so a sealed key cannot be moved to
 * another row. Without a key-encryption key the envelope is marked `plain` and only the
 * database's own protection (file permissions, access control, backups) guards it.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const SEALED = 'sealed.v1';
const PLAIN = 'plain.v1';

/** A configured secret is stretched into exactly 256 bits; it must carry that much entropy. */
export const KEY_ENCRYPTION_KEY_MIN_LENGTH = 32;

/** The stored private key cannot be read with the configuration at hand. */
export class SealedKeyError extends Error {}

export function keyEncryptionKey(secret: string): Buffer {
  return Buffer.from(
    hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'pulsegate', 'oauth signing keys', 32),
  );
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

export function unseal(envelope: string, kek: Buffer | null, associated: string): string {
  if (envelope.startsWith(`${PLAIN}.`)) {
    return Buffer.from(envelope.slice(PLAIN.length + 1), 'base64url').toString('utf8');
  }
  if (!isSealed(envelope)) throw new SealedKeyError(`signing key ${associated}: unknown format`);
  if (kek === null) {
    throw new SealedKeyError(
      `signing key ${associated} is encrypted: configure the key-encryption key it was sealed with`,
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
    throw new SealedKeyError(
      `signing key ${associated} cannot be decrypted: wrong key-encryption key`,
    );
  }
}
