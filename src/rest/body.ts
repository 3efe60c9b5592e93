/**
 * Write (and content read) parameters as Grape reads them: query and body merged (the body wins),
 * then the path's own parameters over both (a proxy, an audit log or a firewall rule goes by the
 * path); each value coerced from a form string as Grape coerces it, by the type its JSON Schema
 * declares (params.ts); then the schema checks the result and the REST face's one formatter words
 * every problem as Grape does, in declaration order ("title is missing", "confidential is
 * invalid", "state_event does not have a valid value").
 */
import { Kind, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import type { FastifySchemaValidationError } from 'fastify';
import { calendarDay } from '../domain/content-rules.js';
import { DAY_FORMAT, grapeErrors } from './params.js';

/** What a declared parameter holds once read: absent, cleared (null) or coerced. */
export type ParamValue = string | number | boolean | number[] | null;
export type Params<P extends TProperties> = { [K in keyof P]?: ParamValue };

/** Grape's Boolean coercion (Virtus): these strings and nothing else. */
const TRUE = new Set(['true', '1', 't', 'yes', 'y']);
const FALSE = new Set(['false', '0', 'f', 'no', 'n']);
const INTEGER = /^[+-]?\d+$/;

/** A form string that spells an integer becomes that number; the schema then checks its range. */
function integer(raw: unknown): unknown {
  return typeof raw === 'string' && INTEGER.test(raw.trim()) ? Number(raw.trim()) : raw;
}

/**
 * Grape's coercion of one value to the type its schema declares. What does not coerce is left as
 * it came, for the schema to refuse.
 */
function coerce(schema: TSchema, raw: unknown): unknown {
  switch (schema[Kind]) {
    case 'Integer':
      return integer(raw);
    case 'Boolean':
      if (typeof raw === 'number' && (raw === 0 || raw === 1)) return raw === 1;
      if (typeof raw === 'string') {
        const lower = raw.toLowerCase();
        if (TRUE.has(lower)) return true;
        if (FALSE.has(lower)) return false;
      }
      return raw;
    case 'String':
      if (schema.format === DAY_FORMAT)
        return typeof raw === 'string' ? (calendarDay(raw.trim()) ?? raw) : raw;
      return typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : raw;
    case 'Union':
      // Integer-valued enumerations (access_level) come as JSON numbers too.
      return typeof raw === 'number' ? String(raw) : raw;
    case 'Array': {
      // `iids[]=1&iids[]=2`, `iids=1,2` or one JSON number.
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [raw];
      return items.map(integer);
    }
    default:
      return raw;
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

/** A TypeBox failure in the shape of Fastify's (Ajv's) errors, which the formatter reads. */
function asSchemaError(error: ValueError): FastifySchemaValidationError {
  const keyword =
    error.type === ValueErrorType.ObjectRequiredProperty
      ? 'required'
      : error.type === ValueErrorType.Union && typeof error.value === 'string'
        ? 'enum'
        : 'type';
  return { keyword, instancePath: error.path, schemaPath: '', params: {}, message: error.message };
}

/**
 * Reads the declared parameters from the merged ones. Absent values are left out; a nullable
 * one sent as null or "" is null (cleared); a null for any other counts as absent. Every failure
 * is collected, then thrown as one ValidationError.
 */
export function readParams<P extends TProperties>(
  raw: Record<string, unknown>,
  properties: P,
): Params<P> {
  const out: Record<string, unknown> = {};
  const checked: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const value = raw[name];
    if (value === undefined || (value === null && !schema.nullable)) continue;
    if (value === null || (schema.nullable && value === '')) out[name] = null;
    else out[name] = checked[name] = coerce(schema, value);
  }
  const schema = Type.Object(properties);
  const errors = [...Value.Errors(schema, checked)];
  if (errors.length > 0) throw grapeErrors(errors.map(asSchemaError), Object.keys(properties));
  return out as Params<P>;
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
