/**
 * The contribution calendar's year: GitLab's profile shows a year of days up to today, counted in
 * UTC days here (the server has no per-user time zone), keyed `YYYY-MM-DD`.
 */
export const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a UTC day given as days since the epoch. */
export function dayKey(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The calendar's days, oldest first (days since the epoch): one year back from today. */
export function calendarDays(now: number): { first: number; last: number } {
  const today = new Date(now);
  const last = Math.floor(now / DAY_MS);
  const yearAgo = Date.UTC(today.getUTCFullYear() - 1, today.getUTCMonth(), today.getUTCDate());
  return { first: Math.floor(yearAgo / DAY_MS) + 1, last };
}
