/**
 * Connection arguments: `first`/`last` from 1 to the REST maximum (100), default the REST default
 * (20), never both. A bad page argument is an error of its own connection field (with its
 * code), so the rest of a response stands; the gate's cost estimate prices it at what it could
 * fetch (`estimatedPageSize`) without refusing the request.
 */
import { ValidationError } from '../domain/errors.js';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../domain/pagination.js';
import { faceError } from './errors.js';
import { decodeCursor } from './ids.js';

export interface RawPageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

export interface PageWindow {
  direction: 'forward' | 'backward';
  size: number;
  afterId?: number;
  beforeId?: number;
}

/** What a connection could fetch, for cost estimates: never throws, clamped to 1..100. */
export function estimatedPageSize(args: Record<string, unknown>): number {
  const sizes = [args.first, args.last].filter((v): v is number => typeof v === 'number');
  if (sizes.length === 0) return DEFAULT_PER_PAGE;
  return Math.min(MAX_PER_PAGE, Math.max(1, ...sizes));
}

/** The page size a connection field will return; throws on bad sizes. */
export function pageSize(args: RawPageArgs): number {
  const { first, last } = args;
  if (first != null && last != null) {
    throw new ValidationError(['first and last cannot be combined']);
  }
  for (const [name, value] of [
    ['first', first],
    ['last', last],
  ] as const) {
    if (value == null) continue;
    if (value < 1) throw new ValidationError([`${name} must be at least 1`]);
    if (value > MAX_PER_PAGE) {
      throw faceError('PAGE_SIZE_EXCEEDED', `${name} must be at most ${MAX_PER_PAGE}`);
    }
  }
  return first ?? last ?? DEFAULT_PER_PAGE;
}

export function pageWindow(args: RawPageArgs): PageWindow {
  const size = pageSize(args);
  const errors: string[] = [];
  const cursor = (name: 'after' | 'before') => {
    const value = args[name];
    if (value == null) return undefined;
    const id = decodeCursor(value);
    if (id === null) errors.push(`${name} is not a valid cursor`);
    return id ?? undefined;
  };
  const afterId = cursor('after');
  const beforeId = cursor('before');
  if (errors.length > 0) throw new ValidationError(errors);
  return {
    direction: args.last != null ? 'backward' : 'forward',
    size,
    ...(afterId !== undefined ? { afterId } : {}),
    ...(beforeId !== undefined ? { beforeId } : {}),
  };
}
