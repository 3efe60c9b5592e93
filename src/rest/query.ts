/**
 * Query parameters the way GitLab's Rack stack sees them, and back again the way Rails writes
 * them into Link URLs. Fastify hands a repeated key over as an array; Rack keeps the last value
 * of a plain key (`a=1&a=2` → `a=2`) and turns only `a[]=1&a[]=2` into the array `a`.
 */

export type QueryValue = string | string[];
export type NormalizedQuery = Record<string, QueryValue>;

/** Last value wins for plain keys; `key[]` becomes the array `key`. Non-strings are dropped. */
export function normalizeQuery(raw: unknown): NormalizedQuery {
  const out: NormalizedQuery = {};
  if (raw === null || typeof raw !== 'object') return out;
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const values = (Array.isArray(value) ? value : [value]).filter(
      (v): v is string => typeof v === 'string',
    );
    if (values.length === 0) continue;
    if (key.endsWith('[]') && key.length > 2) out[key.slice(0, -2)] = values;
    else out[key] = values[values.length - 1]!;
  }
  return out;
}

/** Ruby's CGI.escape: everything but `A-Za-z0-9_.-~` percent-encoded, space as `+`. */
const UNRESERVED = /^[A-Za-z0-9_.~-]*$/;

export function cgiEscape(value: string): string {
  // Most keys and values need no escaping; skip the encoder for them (this runs per request).
  if (UNRESERVED.test(value)) return value;
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Rails' Hash#to_query: `key=value` pieces, sorted as encoded strings, joined by `&`. */
export function toQuery(params: NormalizedQuery): string {
  return queryPieces(params).sort().join('&');
}

/** The encoded `key=value` pieces of `toQuery`, unsorted. */
export function queryPieces(params: NormalizedQuery): string[] {
  const pieces: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (Array.isArray(value)) {
      // One piece per array, as Array#to_query is a single piece of the sorted hash.
      const name = cgiEscape(`${key}[]`);
      if (value.length > 0) pieces.push(value.map((v) => `${name}=${cgiEscape(v)}`).join('&'));
    } else pieces.push(`${cgiEscape(key)}=${cgiEscape(value)}`);
  }
  return pieces;
}
