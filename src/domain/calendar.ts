/**
 * The contribution calendar's year, as GitLab computes it (Gitlab::ContributionsCalendar): the
 * days of the contributor's own time zone (their `timezone`, UTC by default), a year up to today,
 * keyed `YYYY-MM-DD`. A day is numbered as days since 1970-01-01 of its local
 * date, so day arithmetic stays integer whatever the zone.
 *
 * GitLab shifts every event by the zone's offset *now* (`INTERVAL 'utc_offset seconds'`), which
 * puts an event of the other half of a DST year an hour off. Here each event is placed by the
 * offset in force at its own instant: the year is cut where the zone's offset changes, and each
 * piece is counted with its own offset (`offsetSegments`).
 */
export const DAY_MS = 86_400_000;
export const DEFAULT_TIME_ZONE = 'UTC';

/** `YYYY-MM-DD` of a day given as days since the epoch. */
export function dayKey(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * The canonical IANA name of a time zone (`pacific/auckland` → `Pacific/Auckland`), or null when
 * the runtime's time zone database does not know it.
 */
export function canonicalTimeZone(name: unknown): string | null {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name.trim() }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The zone's offset from UTC at `at`, in milliseconds (east positive). */
export function zoneOffset(zone: string, at: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(at))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const local = Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day!,
    parts.hour!,
    parts.minute!,
    parts.second!,
  );
  return local - Math.floor(at / 1000) * 1000;
}

/** The local date of `at` in `zone`, as days since the epoch. */
export function localDay(zone: string, at: number): number {
  return Math.floor((at + zoneOffset(zone, at)) / DAY_MS);
}

/** The UTC instant at which the local day `day` begins in `zone`. */
export function startOfLocalDay(zone: string, day: number): number {
  const midnight = day * DAY_MS;
  // The offset of the day's start is nearly always the offset a few hours either side of it;
  // trying both finds a midnight that DST did not skip, else the first instant of the day.
  for (const guess of [zoneOffset(zone, midnight), zoneOffset(zone, midnight - DAY_MS / 2)]) {
    const at = midnight - guess;
    if (localDay(zone, at) === day && localDay(zone, at - 1) === day - 1) return at;
  }
  let lo = midnight - 15 * 3_600_000;
  let hi = midnight + 15 * 3_600_000;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localDay(zone, mid) >= day) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The calendar's days in `zone` (days since the epoch): the year up to today, from the day after
 * the same date a year ago (365 days, 366 across a 29 February), as the profile draws it.
 */
export function calendarDays(
  now: number,
  zone = DEFAULT_TIME_ZONE,
): { first: number; last: number } {
  const last = localDay(zone, now);
  const today = new Date(last * DAY_MS);
  const year = today.getUTCFullYear() - 1;
  const month = today.getUTCMonth();
  // 29 February a year on is 28 February, as Rails' `years_ago`.
  const date = Math.min(today.getUTCDate(), new Date(Date.UTC(year, month + 1, 0)).getUTCDate());
  return { first: Date.UTC(year, month, date) / DAY_MS + 1, last };
}

/** A stretch of time in which the zone's offset does not change. */
export interface OffsetSegment {
  from: number;
  /** Exclusive. */
  to: number;
  offset: number;
}

/** `[from, to)` cut where `zone`'s offset changes (to the millisecond), each with its offset. */
export function offsetSegments(zone: string, from: number, to: number): OffsetSegment[] {
  const segments: OffsetSegment[] = [];
  let start = from;
  let offset = zoneOffset(zone, from);
  // Offsets change at most a few times a year, never twice within a day.
  for (let probe = from + DAY_MS / 2; start < to; probe += DAY_MS / 2) {
    const end = Math.min(probe, to);
    const next = zoneOffset(zone, end);
    if (next === offset && end < to) continue;
    if (next === offset) {
      segments.push({ from: start, to, offset });
      break;
    }
    // The change lies in (end - DAY_MS / 2, end]: the first instant with the new offset.
    let lo = Math.max(start, end - DAY_MS / 2);
    let hi = end;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (zoneOffset(zone, mid) === offset) lo = mid;
      else hi = mid;
    }
    segments.push({ from: start, to: hi, offset });
    start = hi;
    offset = next;
    if (start >= to) break;
    if (end >= to) {
      segments.push({ from: start, to, offset });
      break;
    }
  }
  return segments;
}
