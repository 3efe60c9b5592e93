/**
 * Entity tags for conditional requests (RFC 9110 §8.8.3, §13.1.2): strong tags built from the
 * parts that determine a response, and `If-None-Match` matching.
 */
import { createHash } from 'node:crypto';

/** A strong entity tag (quoted) over the given parts; parts are length-prefixed, never ambiguous. */
export function strongTag(parts: readonly (string | number | Uint8Array)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    const bytes = typeof part === 'string' || typeof part === 'number' ? String(part) : part;
    const length = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
    hash.update(`${length}:`);
    hash.update(bytes);
  }
  return `"${hash.digest('base64url').slice(0, 32)}"`;
}

/**
 * Whether `If-None-Match` matches `tag`: `*`, or any listed tag equal to it under the weak
 * comparison RFC 9110 prescribes for this header (a `W/` prefix is ignored).
 */
export function ifNoneMatchMatches(header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() === '*') return true;
  for (const match of text.matchAll(/(?:W\/)?("[^"]*")/g)) {
    if (match[1] === tag) return true;
  }
  return false;
}
