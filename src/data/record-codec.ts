/**
 * Between a record's file form and its memory form: the fields whose schema carries a TypeBox
 * transform (times, scope lists, a push) are decoded or encoded, the rest is passed through.
 * TypeBox's own Value.Decode/Encode would do the same, but they re-check every union on the way
 * (an import decodes millions of lines that were checked already) and Encode rejects values that
 * break the file's rules, where export must write whatever the database holds.
 */
import { type TSchema, TransformKind } from '@sinclair/typebox';
import { HasTransform } from '@sinclair/typebox/value';
import { FILE_ONLY } from './record-fields.js';

interface Codec {
  Decode(value: unknown): unknown;
  Encode(value: unknown): unknown;
}

function codecOf(schema: TSchema): Codec | undefined {
  return (schema as { [TransformKind]?: Codec })[TransformKind];
}

/** The X of "X or null", or undefined for any other schema. */
function nullableOf(schema: TSchema): TSchema | undefined {
  const variants = schema.anyOf as TSchema[] | undefined;
  if (variants?.length !== 2 || !variants.some((v) => v.type === 'null')) return undefined;
  return variants.find((v) => v.type !== 'null');
}

/** Per object schema, the properties that hold a transform somewhere (computed once). */
const decodable = new WeakMap<TSchema, [string, TSchema][]>();

function transformedProperties(schema: TSchema): [string, TSchema][] {
  let found = decodable.get(schema);
  if (!found) {
    found = Object.entries(schema.properties as Record<string, TSchema>).filter(([, field]) =>
      HasTransform(field, []),
    );
    decodable.set(schema, found);
  }
  return found;
}

/** The memory form of a value that passed `schema`'s check. */
export function decode(schema: TSchema, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const inner = nullableOf(schema);
  if (inner) return decode(inner, value);
  let out = value;
  if (schema.type === 'object') {
    const fields = transformedProperties(schema);
    if (fields.length > 0) {
      const copy = { ...(value as Record<string, unknown>) };
      for (const [key, field] of fields) {
        if (copy[key] !== undefined) copy[key] = decode(field, copy[key]);
      }
      out = copy;
    }
  } else if (schema.type === 'array' && HasTransform(schema.items as TSchema, [])) {
    out = (value as unknown[]).map((v) => decode(schema.items as TSchema, v));
  }
  return codecOf(schema)?.Decode(out) ?? out;
}

/**
 * The file form of a record's value: transforms encoded, object keys in schema order. Fields
 * only a file carries (plain secrets, a push) are written only when set.
 */
export function encode(schema: TSchema, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const inner = nullableOf(schema);
  if (inner) return encode(inner, value);
  const codec = codecOf(schema);
  const encoded = codec ? codec.Encode(value) : value;
  if (schema.type === 'object') {
    const source = encoded as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(schema.properties as Record<string, TSchema>)) {
      const v = source[key];
      if (v === undefined || (v === null && field.column === FILE_ONLY)) continue;
      out[key] = encode(field, v);
    }
    return out;
  }
  if (schema.type === 'array') return (encoded as unknown[]).map((v) => encode(schema.items, v));
  return encoded;
}
