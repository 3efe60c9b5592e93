/**
 * Declared parameters, as GitLab's endpoint files declare them (`optional :action, type: String,
 * values: …`), all as JSON Schema, and one formatter that turns the failures into Grape's exact
 * 400 bodies ("page is invalid, action does not have a valid value"), one message per parameter,
 * in declaration order.
 *
 * Listings declare their query, checked by Fastify before the handler runs. The query is first
 * read the way Rack reads it (query.ts), so a schema sees `action=a&action=b` as "b" and
 * `action[]=a` as an array (which no String accepts). Writes and content reads declare their
 * parameters with the TypeBox builders below; body.ts merges query, body and path as Grape
 * does, coerces form strings to the declared types and checks them against the same schema.
 */
import { FormatRegistry, type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox';
import type { FastifySchemaValidationError } from 'fastify';
import { calendarDay } from '../domain/content-rules.js';
import { ValidationError } from '../domain/errors.js';
import { parseDay } from '../domain/filters.js';
import { MAX_ID } from '../domain/ids.js';
import { INTEGER_PATTERN, ZERO_PATTERN } from '../domain/pagination.js';
import { ACTIONS, TARGET_TYPES } from '../domain/vocabulary.js';

/** Options for Fastify's Ajv: every failure reported, nothing coerced (Grape's rules apply). */
export const AJV_OPTIONS = {
  allErrors: true,
  coerceTypes: false,
  formats: {
    /** `YYYY-MM-DD`, optionally with a time that is ignored; impossible days fail. */
    'gitlab-day': (value: string) => value === '' || parseDay(value) !== null,
  },
} as const;

/** An empty value counts as omitted, as in Grape: every pattern also accepts "". */
const orEmpty = (pattern: string) => `^(?:${pattern.slice(1, -1)})?$`;
const oneOf = (values: readonly string[]) => ({ type: 'string', enum: ['', ...values] }) as const;

/** `optional :page, :per_page, type: Integer` (with `per_page` refusing 0). */
const PAGINATION = {
  page: { type: 'string', pattern: orEmpty(INTEGER_PATTERN) },
  per_page: { type: 'string', pattern: orEmpty(INTEGER_PATTERN), not: { pattern: ZERO_PATTERN } },
} as const;

/** The Events API's filters (lib/api/events.rb), after pagination as Grape orders them. */
export const EVENT_LIST_QUERY = {
  type: 'object',
  properties: {
    ...PAGINATION,
    action: oneOf(ACTIONS),
    target_type: oneOf(Object.keys(TARGET_TYPES)),
    before: { type: 'string', format: 'gitlab-day' },
    after: { type: 'string', format: 'gitlab-day' },
    sort: oneOf(['asc', 'desc']),
  },
} as const;

/** Plain offset pagination (hook event logs). */
export const EVENT_PAGE_QUERY = { type: 'object', properties: { ...PAGINATION } } as const;

/** `:id` of a user or project: a number or a (URL-encoded) path or username. */
export const ID_PARAM = {
  type: 'object',
  properties: { id: { type: 'string' } },
  required: ['id'],
} as const;

export interface EventListQuery {
  page?: string;
  per_page?: string;
  action?: string;
  target_type?: string;
  before?: string;
  after?: string;
  sort?: string;
  scope?: string | string[];
}

/** A write's `YYYY-MM-DD` day (`type: Date`): a real calendar day, surrounding blanks ignored. */
export const DAY_FORMAT = 'calendar-day';
FormatRegistry.Set(DAY_FORMAT, (value) => calendarDay(value) !== null);

/*
 * Grape's types for write parameters, optional unless `required`. An integer is an id, an iid,
 * an access level or a count: beyond the stored id range (domain/ids.ts) it is refused (400)
 * rather than rounded, and PostgreSQL refuses a larger number for its integer columns. No text
 * column stores NUL (PostgreSQL refuses it): such a string is invalid, not a 500.
 */
export const text = () => Type.Optional(Type.String({ pattern: '^[^\\u0000]*$' }));
export const integer = () => Type.Optional(Type.Integer({ minimum: -MAX_ID, maximum: MAX_ID }));
export const boolean = () => Type.Optional(Type.Boolean());
export const day = () => Type.Optional(Type.String({ format: DAY_FORMAT }));
export const values = (allowed: readonly string[]) =>
  Type.Optional(Type.Union(allowed.map((value) => Type.Literal(value))) as TUnion<TLiteral[]>);
/** A comma-separated list or an array of integers (`iids[]=1&iids[]=2`). */
export const integers = () =>
  Type.Optional(Type.Array(Type.Integer({ minimum: -MAX_ID, maximum: MAX_ID })));
/** `requires :name`: missing, it is refused. */
export const required = <T extends TSchema>(schema: T) => Type.Optional(schema, false);
/** Accepted as `null` (or an empty string) to clear the value. */
export const nullable = <T extends TSchema>(schema: T): T => ({ ...schema, nullable: true });

/** Grape's wording per failed keyword. */
function message(name: string, keyword: string): string {
  switch (keyword) {
    case 'required':
      return `${name} is missing`;
    case 'enum':
      return `${name} does not have a valid value`;
    case 'not':
      return `${name} has a value not allowed`;
    default:
      return `${name} is invalid`;
  }
}

/**
 * Fastify's schema error formatter for the REST face: one Grape message per parameter, in the
 * `order` the parameters are declared in when it is given (a validator may report missing ones
 * first).
 */
export function grapeErrors(
  errors: FastifySchemaValidationError[],
  order: readonly string[] = [],
): ValidationError {
  const messages = new Map<string, string>();
  for (const error of errors) {
    const name = error.instancePath.split('/')[1] ?? String(error.params?.missingProperty ?? '');
    // The first failure of a parameter decides its message (a wrong type before its values).
    if (name && !messages.has(name)) messages.set(name, message(name, error.keyword));
  }
  const rank = (name: string) => {
    const at = order.indexOf(name);
    return at === -1 ? order.length : at;
  };
  const names = [...messages.keys()].sort((a, b) => rank(a) - rank(b));
  return new ValidationError(names.map((name) => messages.get(name)!));
}
