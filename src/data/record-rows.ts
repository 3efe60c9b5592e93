/**
 * Records ↔ table rows, derived from the kind definitions: every field that is not FILE_ONLY is
 * the column of the same name (through its codec, its default when absent), and a kind's derived
 * columns are computed from the whole record. The bulk writer's column lists come from here too.
 */
import type { TSchema } from '@sinclair/typebox';
import type { BulkColumns } from '../store/bulk.js';
import { type ColumnCodec, FILE_ONLY, type Fallback, type RowContext } from './record-fields.js';
import { type DataRecord, KINDS, RECORD_KINDS, type RecordKind } from './record-kinds.js';
import { PUSH_COLUMNS } from './push-rows.js';

interface FieldColumn {
  name: string;
  index: number;
  codec: ColumnCodec | undefined;
  fallback: Fallback | undefined;
  constant: unknown;
}

interface Layout {
  columns: string[];
  fields: FieldColumn[];
  derived: { index: number; compute: (record: never, context: RowContext) => unknown }[];
}

function layout(kind: RecordKind): Layout {
  const { schema, derived } = KINDS[kind];
  const stored = Object.entries(schema.properties as Record<string, TSchema>).filter(
    ([name, field]) => name !== 'kind' && field.column !== FILE_ONLY,
  );
  const columns = [...new Set([...stored.map(([name]) => name), ...Object.keys(derived)])];
  return {
    columns,
    fields: stored.map(([name, field]) => ({
      name,
      index: columns.indexOf(name),
      codec: field.column as ColumnCodec | undefined,
      fallback: field.fallback as Fallback | undefined,
      constant: field.default ?? null,
    })),
    derived: Object.entries(derived).map(([name, compute]) => ({
      index: columns.indexOf(name),
      compute,
    })),
  };
}

const LAYOUTS = Object.fromEntries(RECORD_KINDS.map((k) => [k, layout(k)])) as Record<
  RecordKind,
  Layout
>;

/** The columns the bulk writer inserts, per table. */
export const BULK_COLUMNS = {
  ...Object.fromEntries(RECORD_KINDS.map((k) => [KINDS[k].table, LAYOUTS[k].columns])),
  push_event_payloads: PUSH_COLUMNS,
} as unknown as BulkColumns;

/** The values of a record's row, in BULK_COLUMNS order. */
export function rowValues(record: DataRecord, context: RowContext): unknown[] {
  const { fields, derived, columns } = LAYOUTS[record.kind];
  const source = record as unknown as Record<string, unknown>;
  const values = new Array<unknown>(columns.length);
  for (const f of fields) {
    let value = source[f.name];
    if (value === undefined || value === null) {
      value = f.fallback ? f.fallback(record, context) : f.constant;
    }
    values[f.index] = value !== null && f.codec ? f.codec.toColumn(value) : value;
  }
  for (const d of derived) values[d.index] = d.compute(record as never, context);
  return values;
}

/** The record a row holds (FILE_ONLY fields left out: export never writes plain secrets). */
export function recordFromRow<K extends RecordKind>(
  kind: K,
  row: object,
): Extract<DataRecord, { kind: K }> {
  const source = row as Record<string, unknown>;
  const record: Record<string, unknown> = { kind };
  for (const f of LAYOUTS[kind].fields) {
    const value = source[f.name];
    record[f.name] = value !== null && value !== undefined && f.codec ? f.codec.fromColumn(value) : value;
  }
  return record as Extract<DataRecord, { kind: K }>;
}
