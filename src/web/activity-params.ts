/**
 * The activity pages' query: `filter` (a GitLab tab: all, push, merged, issue, comments, team),
 * `before=<id>` (the next page of older events: keyset, no offset), `after=<id>` (the events newer
 * than the newest one shown, as rows only: what the page's script asks for), `date=YYYY-MM-DD`
 * (that UTC day's events only: a day clicked on the contribution calendar; the same bounds as
 * REST's `after=<the day before>&before=<the day after>`), `fragment=1` (rows only). Anything else in the query is ignored; a bad value of these is a 400 with its reason.
 */
import { type ActivityTab, isActivityTab } from '../domain/activity-tabs.js';
import { oneDay } from '../domain/filters.js';

export interface ActivityParams {
  tab: ActivityTab;
  /** Older than this event id. */
  before?: number;
  /** Newer than this event id (0: every event). */
  after?: number;
  /** One UTC day, `YYYY-MM-DD`, and its bounds. */
  date?: { key: string; createdFrom: number; createdBefore: number };
  fragment: boolean;
}

const ID = /^\d{1,16}$/;

function single(query: Record<string, unknown>, name: string): string | undefined | null {
  const value = query[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

function eventId(value: string, min: number): number | null {
  if (!ID.test(value)) return null;
  const id = Number(value);
  return Number.isSafeInteger(id) && id >= min ? id : null;
}

/** The parameters, or the reason they are refused. */
export function activityParams(raw: unknown): ActivityParams | { error: string } {
  const query = (raw ?? {}) as Record<string, unknown>;
  const filter = single(query, 'filter');
  const before = single(query, 'before');
  const after = single(query, 'after');
  const fragment = single(query, 'fragment');
  const date = single(query, 'date');
  if (filter === null || before === null || after === null || fragment === null || date === null) {
    return { error: 'A parameter was given more than once.' };
  }
  const tab = filter === undefined || filter === '' ? 'all' : filter;
  if (!isActivityTab(tab)) {
    return { error: 'Unknown filter: use all, push, merged, issue, comments or team.' };
  }
  const params: ActivityParams = { tab, fragment: fragment === '1' };
  if (fragment !== undefined && fragment !== '1') return { error: 'fragment must be 1.' };
  if (before !== undefined && after !== undefined) {
    return { error: 'Give either before or after, not both.' };
  }
  if (before !== undefined) {
    const id = eventId(before, 1);
    if (id === null) return { error: 'before must be an event id.' };
    params.before = id;
  }
  if (after !== undefined) {
    const id = eventId(after, 0);
    if (id === null) return { error: 'after must be an event id.' };
    params.after = id;
  }
  if (date !== undefined && date !== '') {
    const bounds = oneDay(date);
    if (bounds === null) return { error: 'date must be a day: YYYY-MM-DD.' };
    params.date = { key: date, ...bounds };
  }
  return params;
}

/**
 * The page's own URL for a tab, a day and an older page: what its links and its script fetch.
 * `date`: a day's key (`YYYY-MM-DD`), kept across the tabs.
 */
export function activityHref(
  path: string,
  at: { tab: ActivityTab; date?: string | undefined; before?: number | undefined },
): string {
  const query = new URLSearchParams();
  if (at.tab !== 'all') query.set('filter', at.tab);
  if (at.date !== undefined) query.set('date', at.date);
  if (at.before !== undefined) query.set('before', String(at.before));
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}
