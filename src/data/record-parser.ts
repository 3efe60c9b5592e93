/**
 * One line of the format → a record: JSON, then the kind's schema (compiled once by TypeBox),
 * then the rules between fields. Throws RecordError with the reason; the importer adds the line.
 * Whether the ids a record points at exist is the ledger's business (record-references.ts).
 */
import type { TObject } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { decode } from './record-codec.js';
import { RecordError, describeErrors } from './record-errors.js';
import { type DataRecord, KINDS, RECORD_KINDS, type RecordKind } from './record-kinds.js';
import { checkRules } from './record-rules.js';

interface Parser {
  schema: TObject;
  check: TypeCheck<TObject>;
}

/** Each kind's schema compiled once, when the module loads. */
const PARSERS = Object.fromEntries(
  RECORD_KINDS.map((kind): [RecordKind, Parser] => {
    const { schema } = KINDS[kind];
    return [kind, { schema, check: TypeCompiler.Compile(schema) }];
  }),
) as Record<RecordKind, Parser>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses one line of the format. */
export function parseRecordLine(text: string): DataRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RecordError('not valid JSON');
  }
  return parseRecord(value);
}

export function parseRecord(value: unknown): DataRecord {
  if (!isPlainObject(value)) throw new RecordError('a record must be a JSON object');
  const kind = value.kind;
  if (typeof kind !== 'string' || !Object.hasOwn(KINDS, kind)) {
    throw new RecordError(`"kind" must be one of ${RECORD_KINDS.join(', ')}`);
  }
  const parser = PARSERS[kind as RecordKind];
  if (!parser.check.Check(value)) {
    throw new RecordError(describeErrors(parser.schema, kind, parser.check.Errors(value)));
  }
  const record = decode(parser.schema, value) as DataRecord;
  checkRules(record);
  return record;
}
