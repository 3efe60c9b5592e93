/**
 * The field types the record kinds are built from, as TypeBox schemas. A field carries what the
 * format needs beyond JSON Schema in a few extra keywords, read by the error formatter
 * (record-errors.ts) and the row mapping (record-rows.ts), so a field says once how it is
 * validated, what it defaults to and how it is stored:
 *
 * - `problem`: the message for a value that breaks the field's pattern, format or bounds;
 * - `column`: how the value is stored when the column holds another type (booleans as 0/1,
 *   lists as one string), or FILE_ONLY for fields that never reach a column of their own;
 * - `fallback`: the value stored when the field is absent, computed from the record (a constant
 *   default is JSON Schema's own `default`);
 * - `values`: the allowed values of a OneOf, as messages list them.
 */
import {
  FormatRegistry,
  type SchemaOptions,
  type TLiteral,
  type TLiteralValue,
  type TNull,
  type TSchema,
  type TUnion,
  type TUnsafe,
  Type,
} from '@sinclair/typebox';
import { isEmail, isUsername } from '../domain/account-names.js';
import { redirectUriProblem } from '../domain/redirect-uri.js';
import { canonicalTimeZone } from '../domain/calendar.js';

/** Ids of the other tables must fit PostgreSQL's `integer` / `serial`. */
export const MAX_ID = 2_147_483_647;
export const TITLE_MAX = 255;
export const TEXT_MAX = 1_000_000;

/** How a record value becomes a column value and back. */
export interface ColumnCodec {
  toColumn(value: unknown): unknown;
  fromColumn(value: unknown): unknown;
}

/** Marks a field that is not stored in a column of its own (plain secrets, nested pushes). */
export const FILE_ONLY = 'file-only';

/** What the importer knows about a record beyond the record itself, when it makes its row. */
export interface RowContext {
  /** The import's clock: an absent `created_at` means "now". */
  now: number;
  /** The issue an event concerns (found by the reference ledger). */
  issueId: number | null;
  /** A user's plain password, hashed (hashing is async, so it is done before the row is made). */
  passwordHash: string | null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind's record type
export type Fallback = (record: any, context: RowContext) => unknown;

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** ISO 8601 date-time with a zone (`Z` or `±hh:mm`) → epoch ms, or null when not one. */
export function parseIsoTime(value: string): number | null {
  const m = ISO_TIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  if (month! < 1 || month! > 12 || hour! > 23 || minute! > 59 || second > 59) return null;
  const base = Date.UTC(year!, month! - 1, day!, hour!, minute!, second, ms);
  const check = new Date(Date.UTC(year!, month! - 1, day!));
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month! - 1) return null;
  const zone = m[8]!;
  if (zone === 'Z') return base;
  const sign = zone.startsWith('-') ? -1 : 1;
  const [zh, zm] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
  if (zh > 23 || zm > 59) return null;
  return base - sign * (zh * 60 + zm) * 60_000;
}

/** `YYYY-MM-DD` naming a real calendar day. */
export function isCalendarDay(value: string): boolean {
  const m = DAY.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

interface Format {
  test(value: string): boolean;
  /** The message for a value that fails, given the field's label (`"created_at"`). */
  problem(label: string, value: string): string;
  /** Whether `problem` also answers a value that is not a string at all. */
  anyValue?: boolean;
}

/** String formats of the format, registered with TypeBox under a `pulsegate-` name. */
const FORMATS = {
  'pulsegate-time': {
    test: (v) => parseIsoTime(v) !== null,
    problem: (label) =>
      `${label} must be an ISO 8601 time with a zone, e.g. 2026-01-02T10:00:00.000Z`,
    anyValue: true,
  },
  'pulsegate-day': { test: isCalendarDay, problem: (l) => `${l} must be a date YYYY-MM-DD` },
  'pulsegate-username': { test: isUsername, problem: (l) => `${l} has invalid characters` },
  'pulsegate-email': { test: isEmail, problem: (l) => `${l} is not an e-mail address` },
  'pulsegate-time-zone': {
    test: (v) => canonicalTimeZone(v) !== null,
    problem: (l) => `${l} must be an IANA time zone, e.g. Europe/Berlin`,
  },
  'pulsegate-redirect-uri': {
    test: (v) => redirectUriProblem(v) === null,
    problem: (label, v) => `${label}: ${redirectUriProblem(v)}`,
  },
} satisfies Record<string, Format>;
export type FormatName = keyof typeof FORMATS;

for (const [name, format] of Object.entries(FORMATS)) {
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, format.test);
}

/** The message for a value that fails a registered format (`typeOnly`: is not even a string). */
export function formatProblem(
  name: string,
  label: string,
  value: unknown,
  typeOnly = false,
): string | undefined {
  const format = (FORMATS as Record<string, Format | undefined>)[name];
  if (!format || (typeOnly && !format.anyValue)) return undefined;
  return format.problem(label, value as string);
}

export const Id = Type.Integer({
  minimum: 1,
  maximum: MAX_ID,
  problem: `must be an integer from 1 to ${MAX_ID}`,
});

/**
 * Ids of the tables that grow with activity (events, issues, merge requests, notes): 64-bit on
 * PostgreSQL since migration 026, so up to what a JSON number holds exactly.
 */
export const BigId = Type.Integer({
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  problem: `must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}`,
});

/** A non-negative integer (counts). */
export const Count = Type.Integer({
  minimum: 0,
  maximum: MAX_ID,
  problem: 'must be a non-negative integer',
});

export interface TextRule {
  /** Whether the empty string is allowed (default: no). */
  empty?: boolean;
  format?: FormatName;
  pattern?: RegExp;
  /** The message when `pattern` does not match. */
  problem?: string;
}

/** A string of at most `max` characters (UTF-16 code units, as JavaScript counts). */
export function Text(max: number, rule: TextRule = {}) {
  return Type.String({
    maxLength: max,
    ...(rule.empty ? {} : { minLength: 1 }),
    ...(rule.format ? { format: rule.format } : {}),
    ...(rule.pattern ? { pattern: rule.pattern.source, problem: rule.problem } : {}),
  });
}

/** An ISO 8601 time with a zone in the file, epoch milliseconds in memory and in the database. */
export const Time = Type.Transform(Type.String({ format: 'pulsegate-time' }))
  .Decode((text) => parseIsoTime(text)!)
  .Encode((ms) => new Date(ms).toISOString());

type Literals<T extends readonly TLiteralValue[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };
/** A union of literals; typed by the element type when the list is not a tuple. */
type OneOfSchema<T extends readonly TLiteralValue[]> = number extends T['length']
  ? TUnsafe<T[number]>
  : TUnion<Literals<T>>;

/** One of a fixed list of values; messages list them. */
export function OneOf<const T extends readonly TLiteralValue[]>(
  values: T,
  options: SchemaOptions = {},
): OneOfSchema<T> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    { ...options, values },
  ) as never;
}

/** The value or null. */
export function Nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
  return Type.Union([schema, Type.Null()]);
}

/** An optional field: absent or null both mean "not given". */
export function Maybe<T extends TSchema>(schema: T) {
  return Type.Optional(Nullable(schema));
}

/**
 * A field that may be left out: stored as `fallback` then, a constant (JSON Schema's `default`)
 * or computed from the rest of the record.
 */
export function Defaulted<T extends TSchema>(schema: T, fallback: Fallback | TLiteralValue) {
  const extra = typeof fallback === 'function' ? { fallback } : { default: fallback };
  return Type.Optional({ ...schema, ...extra } as T);
}

/** Booleans are stored as 0/1 on both dialects. */
const FLAG: ColumnCodec = {
  toColumn: (v) => (v ? 1 : 0),
  fromColumn: (v) => v === 1,
};

/** true or false, `fallback` when absent. */
export function Flag(fallback: boolean) {
  return Defaulted(Type.Boolean({ column: FLAG }), fallback);
}

/** A list stored as one string, its items joined by `separator` (which no item contains). */
export function joined(separator: string): ColumnCodec {
  return {
    toColumn: (v) => [...new Set(v as string[])].join(separator),
    fromColumn: (v) => (v as string).split(separator).filter(Boolean),
  };
}

/** A field of the file with no column of its own (see FILE_ONLY). */
export function FileOnly<T extends TSchema>(schema: T): T {
  return { ...schema, column: FILE_ONLY };
}

/** Scopes as a list of names or one space/comma-separated string; a list in memory. */
export const Scopes = Type.Transform(
  Type.Union([Type.String(), Type.Array(Type.String())], {
    problem: 'must be a list of scope names',
    column: joined(' '),
  }),
)
  .Decode((value) => (typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : value))
  .Encode((list) => list);
