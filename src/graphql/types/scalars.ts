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
