/**
 * Event filters, shared by REST (`?action=…`) and GraphQL (`filter:{…}`): the vocabulary they
 * accept (vocabulary.ts), the lenient day format and the rule that both day bounds exclude the
 * named day.
 */
import type { EventKind } from './activity-tabs.js';
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
  /**
   * Events of any of these kinds only (the activity pages' tabs, the contribution calendar): an
   * event matches a kind when its action is listed and, if the kind names target types, its
   * target type is one of them.
   */
  kinds?: readonly EventKind[];
  sort: SortOrder;
}

const DAY_MS = 86_400_000;
const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?$)/;

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

/**
 * One UTC day, `YYYY-MM-DD` (the activity pages' `date=`, a day clicked on the calendar): the
 * bounds REST gives for `after=<the day before>&before=<the day after>`. Null for anything else.
 */
export function oneDay(value: string): { createdFrom: number; createdBefore: number } | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const start = parseDay(value);
  if (start === null) return null;
  const bounds = dayBounds(start + DAY_MS, start - DAY_MS);
  return { createdFrom: bounds.createdFrom!, createdBefore: bounds.createdBefore! };
}

/**
 * Filter parameters as the REST face declares them (rest/params.ts validates them against
 * the vocabulary and `parseDay` before this runs). An empty value counts as omitted.
 */
export interface EventFilterParams {
  action?: string;
  target_type?: string;
  before?: string;
  after?: string;
  sort?: string;
}

/** The domain filter of validated parameters (both date bounds exclude the named day). */
export function eventFilterOf(params: EventFilterParams): EventFilter {
  const filter: EventFilter = { sort: params.sort === 'asc' ? 'asc' : 'desc' };
  if (params.action && isAction(params.action)) filter.action = params.action;
  if (params.target_type && isTargetTypeKey(params.target_type)) {
    filter.targetType = TARGET_TYPES[params.target_type];
  }
  const day = (value: string | undefined) => (value ? (parseDay(value) ?? undefined) : undefined);
  const bounds = dayBounds(day(params.before), day(params.after));
  if (bounds.createdBefore !== undefined) filter.createdBefore = bounds.createdBefore;
  if (bounds.createdFrom !== undefined) filter.createdFrom = bounds.createdFrom;
  return filter;
}

/** The filter-key form of a stored target class (`MergeRequest` → `merge_request`). */
export function targetTypeKey(targetClass: TargetClass): TargetTypeKey {
  const entry = Object.entries(TARGET_TYPES).find(([, cls]) => cls === targetClass);
  return entry![0] as TargetTypeKey;
}
