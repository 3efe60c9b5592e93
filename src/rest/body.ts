/**
 * Write parameters as Grape reads them: query and body merged (the body wins), then the path's
 * own parameters over both (a proxy, an audit log or a firewall rule goes by the path), each
 * declared with a type, coerced from a form string or taken from JSON as is, and every problem
 * reported in declaration order with Grape's wording ("title is missing", "confidential is
 * invalid", "state_event does not have a valid value").
 */
import { ValidationError } from '../domain/errors.js';
import { calendarDay } from '../domain/content-rules.js';
import { MAX_ID } from '../domain/ids.js';

export type ParamType =
  | { kind: 'string'; maxLength?: number }
  | { kind: 'integer' }
  | { kind: 'boolean' }
  | { kind: 'day' }
  | { kind: 'values'; values: readonly string[] }
  /** A comma-separated list or an array of integers (`iids[]=1&iids[]=2`). */
  | { kind: 'integers' };

export interface ParamSpec {
  type: ParamType;
  required?: boolean;
  /** Accepted as `null` (or an empty string) to clear the value. */
  nullable?: boolean;
}

export type ParamValue = string | number | boolean | number[] | null;

/** Grape's Boolean coercion (Virtus): these strings and nothing else. */
const TRUE = new Set(['true', '1', 't', 'yes', 'y']);
const FALSE = new Set(['false', '0', 'f', 'no', 'n']);
const INTEGER = /^[+-]?\d+$/;
/**
 * Larger values are refused (400) rather than silently rounded (Grape would coerce to a Bignum):
 * every integer parameter is an id, an iid, an access level or a count, all within the stored id
 * range (domain/ids.ts), and PostgreSQL refuses a larger number for its integer columns. JSON
 * numbers and text alike.
 */
function integer(value: unknown): number | undefined {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && INTEGER.test(value.trim())
        ? Number(value.trim())
        : undefined;
  return n !== undefined && Number.isInteger(n) && Math.abs(n) <= MAX_ID ? n : undefined;
}

type Coerced = { ok: true; value: ParamValue } | { ok: false; reason: 'invalid' | 'values' };

function coerce(type: ParamType, raw: unknown): Coerced {
  switch (type.kind) {
    case 'string':
      if (typeof raw === 'number' || typeof raw === 'boolean')
        return { ok: true, value: String(raw) };
      if (typeof raw !== 'string') return { ok: false, reason: 'invalid' };
      // No text column stores NUL (PostgreSQL refuses it): such a value is invalid, not a 500.
      if (raw.includes('\u0000')) return { ok: false, reason: 'invalid' };
      if (type.maxLength !== undefined && raw.length > type.maxLength)
        return { ok: false, reason: 'invalid' };
      return { ok: true, value: raw };
    case 'integer': {
      const n = integer(raw);
      return n === undefined ? { ok: false, reason: 'invalid' } : { ok: true, value: n };
    }
    case 'boolean':
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      if (typeof raw === 'number' && (raw === 0 || raw === 1))
        return { ok: true, value: raw === 1 };
      if (typeof raw === 'string') {
        const lower = raw.toLowerCase();
        if (TRUE.has(lower)) return { ok: true, value: true };
        if (FALSE.has(lower)) return { ok: true, value: false };
      }
      return { ok: false, reason: 'invalid' };
    case 'day': {
      const day = typeof raw === 'string' ? calendarDay(raw.trim()) : null;
      return day === null ? { ok: false, reason: 'invalid' } : { ok: true, value: day };
    }
    case 'values': {
      // Integer-valued enumerations (access_level) come as JSON numbers too.
      const text = typeof raw === 'number' ? String(raw) : raw;
      if (typeof text !== 'string') return { ok: false, reason: 'invalid' };
      return type.values.includes(text)
        ? { ok: true, value: text }
        : { ok: false, reason: 'values' };
    }
    case 'integers': {
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [raw];
      const out: number[] = [];
      for (const item of items) {
        const n = integer(item);
        if (n === undefined) return { ok: false, reason: 'invalid' };
        out.push(n);
      }
      return { ok: true, value: out };
    }
  }
}

/**
 * Query and body merged as Grape merges them (a non-object body counts as none), then the route's
 * path parameters: `POST /projects/8/issues {"id": 9}` acts on project 8, as in GitLab, whose
 * routing arguments are merged last. A path name also hides its `name[]` spelling.
 */
export function mergedParams(
  query: unknown,
  body: unknown,
  path: Record<string, string> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const source of [query, body]) {
    if (source === null || typeof source !== 'object' || Array.isArray(source)) continue;
    for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
      // Form bodies repeat keys as arrays; `key[]` names an array parameter.
      const name = key.endsWith('[]') ? key.slice(0, -2) : key;
      out[name] = Array.isArray(value) && !key.endsWith('[]') ? value[value.length - 1] : value;
    }
  }
  for (const [name, value] of Object.entries(path)) out[name] = value;
  return out;
}

/**
 * Reads the declared parameters. Absent (or, for nullable ones, null/empty) values are left out
 * (`undefined`) or null; every failure is collected, then thrown as one ValidationError.
 */
export function readParams<S extends Record<string, ParamSpec>>(
  raw: Record<string, unknown>,
  specs: S,
): { [K in keyof S]?: ParamValue } {
  const out: Record<string, ParamValue> = {};
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    const value = raw[name];
    if (value === undefined || (value === null && !spec.nullable)) {
      if (spec.required) problems.push(`${name} is missing`);
      continue;
    }
    if (value === null || (spec.nullable && value === '')) {
      out[name] = null;
      continue;
    }
    const coerced = coerce(spec.type, value);
    if (coerced.ok) out[name] = coerced.value;
    else
      problems.push(
        coerced.reason === 'values' ? `${name} does not have a valid value` : `${name} is invalid`,
      );
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return out as { [K in keyof S]?: ParamValue };
}

/** Typed accessors for what readParams returned. */
export const str = (v: ParamValue | undefined): string | undefined =>
  typeof v === 'string' ? v : undefined;
export const int = (v: ParamValue | undefined): number | undefined =>
  typeof v === 'number' ? v : undefined;
export const bool = (v: ParamValue | undefined): boolean | undefined =>
  typeof v === 'boolean' ? v : undefined;
export const intOrNull = (v: ParamValue | undefined): number | null | undefined =>
  v === null ? null : int(v);
export const strOrNull = (v: ParamValue | undefined): string | null | undefined =>
  v === null ? null : str(v);
export const ints = (v: ParamValue | undefined): number[] | undefined =>
  Array.isArray(v) ? v : undefined;
