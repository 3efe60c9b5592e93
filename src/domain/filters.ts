/**
 * Event filters and their validation, shared by REST (`?action=…`) and GraphQL (`filter:{…}`).
 * Messages follow Grape's wording, which GitLab clients show to users.
 */
import { ValidationError } from './errors.js';
import {
  type Action,
  type TargetClass,
  type TargetTypeKey,
  TARGET_TYPES,
  isAction,
  isTargetTypeKey,
} from './vocabulary.js';

export type SortOrder = 'asc' | 'desc';

export interface EventFilter {
  action?: Action;
  targetType?: TargetClass;
  /** Exclusive upper bound on created_at, epoch ms (start of the `before` day). */
  createdBefore?: number;
  /** Inclusive lower bound on created_at, epoch ms (start of the day after `after`). */
  createdFrom?: number;
  sort: SortOrder;
}

/** A raw query value as the HTTP layer hands it over: a repeated key arrives as an array. */
export type RawValue = string | string[] | undefined | null;

export interface RawEventFilter {
  action?: RawValue;
  target_type?: RawValue;
  before?: RawValue;
  after?: RawValue;
  sort?: RawValue;
}

const DAY_MS = 86_400_000;
const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?$)/;

/** A value given as the empty string counts as omitted, as an absent date does in Grape. */
function present(value: RawValue): value is string | string[] {
  return value !== undefined && value !== null && value !== '';
}

/**
 * Lenient date coercion like Grape's `Date`: `YYYY-MM-DD`, optionally followed by a time that is
 * discarded. Returns the UTC start of that day in epoch ms, or null for anything else (including
 * impossible dates such as 2024-02-30).
 */
export function parseDay(value: string): number | null {
  const match = DATE_PREFIX.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day
  ) {
    return null;
  }
  return ms;
}

/** Both bounds exclude the named day (GitLab's EventsFinder). */
export function dayBounds(before: number | undefined, after: number | undefined) {
  return {
    createdBefore: before,
    createdFrom: after === undefined ? undefined : after + DAY_MS,
  };
}

export function parseEventFilter(raw: RawEventFilter): EventFilter {
  const errors: string[] = [];
  const filter: EventFilter = { sort: 'desc' };

  // An array (`action[]=…`) fails Grape's String coercion ("is invalid") before the values check.
  if (present(raw.action)) {
    if (typeof raw.action !== 'string') errors.push('action is invalid');
    else if (isAction(raw.action)) filter.action = raw.action;
    else errors.push('action does not have a valid value');
  }
  if (present(raw.target_type)) {
    if (typeof raw.target_type !== 'string') errors.push('target_type is invalid');
    else if (isTargetTypeKey(raw.target_type)) filter.targetType = TARGET_TYPES[raw.target_type];
    else errors.push('target_type does not have a valid value');
  }
  let before: number | undefined;
  let after: number | undefined;
  if (present(raw.before)) {
    const day = typeof raw.before === 'string' ? parseDay(raw.before) : null;
    if (day === null) errors.push('before is invalid');
    else before = day;
  }
  if (present(raw.after)) {
    const day = typeof raw.after === 'string' ? parseDay(raw.after) : null;
    if (day === null) errors.push('after is invalid');
    else after = day;
  }
  if (present(raw.sort)) {
    if (typeof raw.sort !== 'string') errors.push('sort is invalid');
    else if (raw.sort === 'asc' || raw.sort === 'desc') filter.sort = raw.sort;
    else errors.push('sort does not have a valid value');
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const bounds = dayBounds(before, after);
  if (bounds.createdBefore !== undefined) filter.createdBefore = bounds.createdBefore;
  if (bounds.createdFrom !== undefined) filter.createdFrom = bounds.createdFrom;
  return filter;
}

/** The filter-key form of a stored target class (`MergeRequest` → `merge_request`). */
export function targetTypeKey(targetClass: TargetClass): TargetTypeKey {
  const entry = Object.entries(TARGET_TYPES).find(([, cls]) => cls === targetClass);
  return entry![0] as TargetTypeKey;
}
