/**
 * Declared parameters, as GitLab's endpoint files declare them (`optional :action, type: String,
 * values: …`): JSON schemas built from the domain's vocabulary, checked by Fastify before the
 * handler runs, and one formatter that turns the failures into Grape's exact 400 bodies
 * ("page is invalid, action does not have a valid value"), one message per parameter, in
 * declaration order. The query is first read the way Rack reads it (query.ts), so a schema
 * sees `action=a&action=b` as "b" and `action[]=a` as an array (which no String accepts).
 */
import type { FastifySchemaValidationError } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { parseDay } from '../domain/filters.js';
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

/** Grape's wording per failed keyword. */
function message(name: string, keyword: string): string {
  switch (keyword) {
    case 'enum':
      return `${name} does not have a valid value`;
    case 'not':
      return `${name} has a value not allowed`;
    default:
      return `${name} is invalid`;
  }
}

/** Fastify's schema error formatter for the REST face: one Grape message per parameter. */
export function grapeErrors(errors: FastifySchemaValidationError[]): ValidationError {
  const messages = new Map<string, string>();
  for (const error of errors) {
    const name = error.instancePath.split('/')[1] ?? String(error.params?.missingProperty ?? '');
    // The first failure of a parameter decides its message (a wrong type before its values).
    if (name && !messages.has(name)) messages.set(name, message(name, error.keyword));
  }
  return new ValidationError([...messages.values()]);
}
