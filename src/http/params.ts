/**
 * Request parameters as the OAuth endpoints and the authorization page read them. Fastify turns a
 * repeated key into an array and an empty value into "" and JSON bodies may carry any type, so
 * every value is checked here: a repeated parameter is recorded as doubled (RFC 6749 §3.1, §3.2:
 * MUST NOT repeat), a non-string as malformed, and an empty value counts as omitted.
 */
export interface ParamSet {
  values: Record<string, string | undefined>;
  doubled: Set<string>;
  malformed: Set<string>;
  /** False when the body was not an object (a JSON array, string or number). */
  wellFormed: boolean;
}

export function readParams(source: unknown): ParamSet {
  const set: ParamSet = {
    values: {},
    doubled: new Set(),
    malformed: new Set(),
    wellFormed: true,
  };
  if (source === undefined || source === null) return set;
  if (typeof source !== 'object' || Array.isArray(source)) {
    set.wellFormed = false;
    return set;
  }
  for (const [key, raw] of Object.entries(source as Record<string, unknown>)) {
    if (typeof raw === 'string') {
      set.values[key] = raw === '' ? undefined : raw;
    } else if (Array.isArray(raw)) {
      set.doubled.add(key);
      const first = raw.find((v) => typeof v === 'string' && v !== '');
      set.values[key] = typeof first === 'string' ? first : undefined;
    } else {
      set.malformed.add(key);
    }
  }
  return set;
}
