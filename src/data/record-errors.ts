/**
 * TypeBox's errors for a bad record → the one message the importer reports for its line, worded
 * as users (and the tests) know them: `"push.commits[0].author" is missing`. When a record has
 * several problems, the first field in the kind's order wins; an unknown field is named first,
 * though: a misspelt key (`usename`) is the cause of the missing field it was meant to be.
 */
import type { TSchema } from '@sinclair/typebox';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import { formatProblem } from './record-fields.js';

/** A line that is not a valid record; the message names the field and what is wrong. */
export class RecordError extends Error {}

/** A record whose id or unique key is already taken (in the database or on an earlier line). */
export class DuplicateRecordError extends RecordError {}

/** The schema behind "X or null": X. */
function unwrap(schema: TSchema): TSchema {
  const variants = schema.anyOf as TSchema[] | undefined;
  if (!variants || variants.length !== 2) return schema;
  const other = variants.find((v) => v.type !== 'null');
  return variants.some((v) => v.type === 'null') && other ? other : schema;
}

/** The path of an error, `/push/commits/0/id`, as keys and indexes. */
function segments(path: string): string[] {
  return path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Where an error sits in the kind's field order (unknown fields after every known one). */
function rank(root: TSchema, path: string): number[] {
  const out: number[] = [];
  let schema: TSchema | undefined = root;
  for (const segment of segments(path)) {
    if (!schema) break;
    schema = unwrap(schema);
    if (schema.type === 'object') {
      const keys = Object.keys(schema.properties as object);
      const i = keys.indexOf(segment);
      out.push(i === -1 ? keys.length : i);
      schema = (schema.properties as Record<string, TSchema>)[segment];
    } else if (schema.type === 'array') {
      out.push(Number(segment));
      schema = schema.items as TSchema;
    } else {
      break;
    }
  }
  return out;
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/** The error to report: the earliest field's, in the order TypeBox found them for that field. */
function first(root: TSchema, errors: Iterable<ValueError>): ValueError | undefined {
  let best: ValueError | undefined;
  let bestRank: number[] = [];
  for (const error of errors) {
    const r = rank(root, error.path);
    if (!best || compare(r, bestRank) < 0) [best, bestRank] = [error, r];
  }
  return best;
}

/**
 * The field's name as messages show it: `"push.commits[2].id"`. Items of a list of strings are
 * named after the list (`"redirect_uris" must not be empty`).
 */
function label(root: TSchema, path: string): string {
  let name = '';
  let schema: TSchema | undefined = root;
  for (const segment of segments(path)) {
    schema = schema && unwrap(schema);
    if (schema?.type === 'array') {
      schema = schema.items as TSchema;
      if (unwrap(schema).type === 'object') name += `[${segment}]`;
    } else {
      name += name === '' ? segment : `.${segment}`;
      schema = (schema?.properties as Record<string, TSchema> | undefined)?.[segment];
    }
  }
  return `"${name}"`;
}

function describe(root: TSchema, kind: string, error: ValueError): string {
  const field = label(root, error.path);
  const { schema } = error;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `${field} is missing`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `unknown field ${field} for kind ${kind}`;
    case ValueErrorType.Object:
      return `${field} must be an object`;
    case ValueErrorType.Array:
      return `${field} ${(schema.problem as string | undefined) ?? 'must be an array'}`;
    case ValueErrorType.ArrayMinItems:
      return `${field} ${schema.tooFew as string}`;
    case ValueErrorType.String:
      return (
        formatProblem(schema.format as string, field, error.value, true) ??
        `${field} must be a string`
      );
    case ValueErrorType.StringMinLength:
      return `${field} must not be empty`;
    case ValueErrorType.StringMaxLength:
      return `${field} is longer than ${schema.maxLength as number} characters`;
    case ValueErrorType.StringPattern:
      return `${field} ${schema.problem as string}`;
    case ValueErrorType.StringFormat:
      return formatProblem(schema.format as string, field, error.value) ?? '';
    case ValueErrorType.Boolean:
      return `${field} must be true or false`;
    case ValueErrorType.Union: {
      if (schema.values) return `${field} must be one of ${(schema.values as unknown[]).join(', ')}`;
      const inner = unwrap(schema);
      if (inner === schema) return `${field} ${schema.problem as string}`;
      if (inner.values) {
        return `${field} must be null or one of ${(inner.values as unknown[]).join(', ')}`;
      }
      // "X or null" and not null: what is wrong with it as an X.
      const errors = error.errors[(schema.anyOf as TSchema[]).indexOf(inner)]!;
      return describe(root, kind, first(root, errors)!);
    }
    default:
      // Integers (ids, counts) say their range in `problem`.
      return `${field} ${(schema.problem as string | undefined) ?? 'is not valid'}`;
  }
}

/** The message for a record of `kind` that failed its schema. */
export function describeErrors(root: TSchema, kind: string, errors: Iterable<ValueError>): string {
  const all = [...errors];
  const error = first(root, all);
  if (!error) return 'is not a valid record';
  const unknown = first(
    root,
    all.filter((e) => e.type === ValueErrorType.ObjectAdditionalProperties),
  );
  if (!unknown || unknown === error) return describe(root, kind, error);
  return `${describe(root, kind, unknown)}, and ${describe(root, kind, error)}`;
}
