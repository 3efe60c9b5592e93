/**
 * Secret handling in one place: random tokens, digests for lookup, password hashing and the only
 * sanctioned comparison of secrets.
 */
import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url: 256 bits, alphabet [A-Za-z0-9_-] (safe in Basic auth and URLs). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Tokens are looked up by their SHA-256 digest; the plaintext is never stored. */
export function digest(secret: string): string {
  // One-shot hashing: every API request digests its token, and this is a third of createHash's cost.
  return hash('sha256', secret, 'hex');
}

/**
 * Constant-time equality for secrets of any length: both sides are hashed first, so the comparison
 * never throws and its time does not depend on where the inputs differ.
 */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(hash('sha256', a, 'buffer'), hash('sha256', b, 'buffer'));
}

// scrypt parameters: N=2^15, r=8, p=1 (≈32 MiB, tens of ms); encoded with the hash so they can grow.
const SCRYPT = { N: 32768, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 };

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number) {
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(password, salt, SCRYPT.keylen, { N, r, p, maxmem: SCRYPT.maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A syntactically valid hash that matches no password, so unknown users cost as much as known. */
const DUMMY_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`;

export async function verifyPassword(password: string, encoded: string | null): Promise<boolean> {
  const parts = (encoded ?? DUMMY_HASH).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(
    password,
    Buffer.from(salt, 'base64url'),
    Number(n),
    Number(r),
    Number(p),
  );
  return encoded !== null && key.length === expected.length && timingSafeEqual(key, expected);
}

export function isPasswordHash(value: string): boolean {
  return /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/.test(value);
}
