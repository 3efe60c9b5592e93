/**
 * Typed reads of one JSON record's fields, each failure a RecordError that names the field.
 * Unknown fields are rejected, so a misspelt key never silently becomes a default.
 */

export class RecordError extends Error {}

/** Ids must fit PostgreSQL's `integer` / `serial`. */
export const MAX_ID = 2_147_483_647;

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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

export interface StringRule {
  max: number;
  /** Whether the empty string is allowed (default: no). */
  empty?: boolean;
}

export class RecordFields {
  private readonly used = new Set<string>(['kind']);

  constructor(
    private readonly obj: Record<string, unknown>,
    readonly kind: string,
    private readonly prefix = '',
  ) {}

  /** The field's name as messages show it (`push.commits[2].id` for nested fields). */
  label(key: string): string {
    return `"${this.prefix}${key}"`;
  }

  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.obj, key) && this.obj[key] !== undefined;
  }

  private take(key: string): unknown {
    this.used.add(key);
    return this.has(key) ? this.obj[key] : undefined;
  }

  private required(key: string): unknown {
    const value = this.take(key);
    if (value === undefined) throw new RecordError(`${this.label(key)} is missing`);
    return value;
  }

  id(key: string): number {
    return this.checkId(key, this.required(key));
  }

  /** An id or null; absent counts as null. */
  optionalId(key: string): number | null {
    const value = this.take(key);
    return value === undefined || value === null ? null : this.checkId(key, value);
  }

  private checkId(key: string, value: unknown): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_ID) {
      throw new RecordError(`${this.label(key)} must be an integer from 1 to ${MAX_ID}`);
    }
    return value;
  }

  /** A non-negative integer (counts). */
  count(key: string): number {
    const value = this.required(key);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_ID) {
      throw new RecordError(`${this.label(key)} must be a non-negative integer`);
    }
    return value;
  }

  string(key: string, rule: StringRule): string {
    return this.checkString(key, this.required(key), rule);
  }

  /** A string or null; absent counts as null. */
  optionalString(key: string, rule: StringRule): string | null {
    const value = this.take(key);
    return value === undefined || value === null ? null : this.checkString(key, value, rule);
  }

  private checkString(key: string, value: unknown, rule: StringRule): string {
    if (typeof value !== 'string') throw new RecordError(`${this.label(key)} must be a string`);
    if (value === '' && !rule.empty) throw new RecordError(`${this.label(key)} must not be empty`);
    if (value.length > rule.max) {
      throw new RecordError(`${this.label(key)} is longer than ${rule.max} characters`);
    }
    return value;
  }

  bool(key: string, fallback: boolean): boolean {
    const value = this.take(key);
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean')
      throw new RecordError(`${this.label(key)} must be true or false`);
    return value;
  }

  oneOf<T extends string | number>(key: string, allowed: readonly T[], fallback?: T): T {
    const value = this.take(key);
    if (value === undefined && fallback !== undefined) return fallback;
    if (value === undefined) throw new RecordError(`${this.label(key)} is missing`);
    if (!(allowed as readonly unknown[]).includes(value)) {
      throw new RecordError(`${this.label(key)} must be one of ${allowed.join(', ')}`);
    }
    return value as T;
  }

  /** One of the allowed values or null; must be present. */
  nullableOneOf<T extends string>(key: string, allowed: readonly T[]): T | null {
    const value = this.take(key);
    if (value === null || value === undefined) return null;
    if (!(allowed as readonly unknown[]).includes(value)) {
      throw new RecordError(`${this.label(key)} must be null or one of ${allowed.join(', ')}`);
    }
    return value as T;
  }

  time(key: string): number {
    return this.checkTime(key, this.required(key));
  }

  optionalTime(key: string): number | null {
    const value = this.take(key);
    return value === undefined || value === null ? null : this.checkTime(key, value);
  }

  private checkTime(key: string, value: unknown): number {
    const ms = typeof value === 'string' ? parseIsoTime(value) : null;
    if (ms === null) {
      throw new RecordError(
        `${this.label(key)} must be an ISO 8601 time with a zone, e.g. 2026-01-02T10:00:00.000Z`,
      );
    }
    return ms;
  }

  /** A list of non-empty strings, each within `rule.max`. */
  stringList(key: string, rule: StringRule): string[] {
    const value = this.required(key);
    if (!Array.isArray(value))
      throw new RecordError(`${this.label(key)} must be a list of strings`);
    return value.map((item) => this.checkString(key, item, rule));
  }

  /** Scopes as an array of names or one space/comma-separated string; at least one. */
  scopes(key: string, allowed: readonly string[]): string[] {
    const value = this.required(key);
    const items =
      typeof value === 'string'
        ? value.split(/[\s,]+/).filter(Boolean)
        : Array.isArray(value) && value.every((s) => typeof s === 'string')
          ? (value as string[])
          : null;
    if (items === null) throw new RecordError(`${this.label(key)} must be a list of scope names`);
    if (items.length === 0)
      throw new RecordError(`${this.label(key)} must name at least one scope`);
    const unknown = items.filter((s) => !allowed.includes(s));
    if (unknown.length) {
      throw new RecordError(
        `${this.label(key)} has unknown scope ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`,
      );
    }
    return [...new Set(items)];
  }

  nested<T>(key: string, parse: (f: RecordFields) => T): T {
    const value = this.required(key);
    if (!isPlainObject(value)) throw new RecordError(`${this.label(key)} must be an object`);
    const inner = new RecordFields(value, this.kind, `${this.prefix}${key}.`);
    inner.used.delete('kind');
    const result = parse(inner);
    inner.done();
    return result;
  }

  /** A nested object, or null when the field is absent or null. */
  optionalNested<T>(key: string, parse: (f: RecordFields) => T): T | null {
    const value = this.take(key);
    return value === undefined || value === null ? null : this.nested(key, parse);
  }

  list<T>(key: string, parse: (f: RecordFields) => T): T[] {
    const value = this.required(key);
    if (!Array.isArray(value)) throw new RecordError(`${this.label(key)} must be an array`);
    return value.map((item, i) => {
      const label = `${this.prefix}${key}[${i}]`;
      if (!isPlainObject(item)) throw new RecordError(`"${label}" must be an object`);
      const inner = new RecordFields(item, this.kind, `${label}.`);
      inner.used.delete('kind');
      const result = parse(inner);
      inner.done();
      return result;
    });
  }

  /** Rejects fields this kind does not have. */
  done(): void {
    for (const key of Object.keys(this.obj)) {
      if (!this.used.has(key)) {
        throw new RecordError(`unknown field ${this.label(key)} for kind ${this.kind}`);
      }
    }
  }
}
