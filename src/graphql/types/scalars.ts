/**
 * `Time` (an instant, ISO 8601 in UTC as REST prints it) and `Date` (a calendar day with REST's
 * lenient parsing: `YYYY-MM-DD`, an optional time part ignored, impossible dates rejected).
 */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { parseDay } from '../../domain/filters.js';

export const TimeScalar = new GraphQLScalarType<number | string, string>({
  name: 'Time',
  description:
    'An instant in ISO 8601 format, UTC, millisecond precision (2026-01-02T10:00:00.123Z).',
  serialize(value) {
    // Models precompute the text of instants they serve often (event times).
    if (typeof value === 'string') return value;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new GraphQLError('Time cannot represent a non-numeric instant');
    }
    return new Date(value).toISOString();
  },
  parseValue() {
    throw new GraphQLError('Time is an output type only');
  },
  parseLiteral() {
    throw new GraphQLError('Time is an output type only');
  },
});

const DAY_FORMAT =
  'must be a date in YYYY-MM-DD format (a time part is accepted and ignored, as on REST)';

function day(value: unknown): number {
  const ms = typeof value === 'string' ? parseDay(value) : null;
  if (ms === null) throw new GraphQLError(`Date ${DAY_FORMAT}: ${JSON.stringify(value)}`);
  return ms;
}

/** Internally the UTC start of the day in epoch ms, which is what `dayBounds` takes. */
export const DateScalar = new GraphQLScalarType<number, string>({
  name: 'Date',
  description: `A calendar day (UTC); ${DAY_FORMAT}.`,
  serialize(value) {
    if (typeof value !== 'number') throw new GraphQLError('Date cannot represent this value');
    return new Date(value).toISOString().slice(0, 10);
  },
  parseValue: day,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError(`Date ${DAY_FORMAT}`);
    return day(ast.value);
  },
});

function safeInt(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new GraphQLError(
      `SafeInt must be an integer from -(2^53 - 1) to 2^53 - 1: ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * The numeric ids of tables that grow with activity (events, issues, merge requests, notes): 64-bit
 * on PostgreSQL (migration 026), past GraphQL's 32-bit `Int`. A JSON number as `Int` is, so
 * clients read the same values; exact up to 2^53 − 1, which no stored id passes (the store refuses
 * to read one).
 */
export const SafeIntScalar = new GraphQLScalarType<number, number>({
  name: 'SafeInt',
  description:
    'An integer from -(2^53 - 1) to 2^53 - 1, written as a JSON number: the numeric ids of events, issues, merge requests and notes, which may pass 2^31.',
  serialize: safeInt,
  parseValue: safeInt,
  parseLiteral(ast) {
    if (ast.kind !== Kind.INT) throw new GraphQLError('SafeInt must be an integer');
    return safeInt(Number(ast.value));
  },
});
