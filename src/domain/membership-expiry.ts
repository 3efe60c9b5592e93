/**
 * When a membership ends. GitLab's `expires_at` is a calendar day and the member loses access at
 * the start of that day, UTC (`Member.expired`: `expires_at <= today`): a membership that expires
 * on D is good through D − 1. Every reader of a membership applies this at read time, so access
 * ends at 00:00 UTC exactly; the periodic job that deletes the row and writes "expired" only
 * tidies up after it.
 */
import { utcDay } from './content-rules.js';

/** The UTC day (YYYY-MM-DD) memberships are judged on at `now`. */
export function membershipDay(now: number): string {
  return utcDay(now);
}

/** Whether a membership with this expiry still grants its level on `day`. */
export function membershipActive(expiresAt: string | null, day: string): boolean {
  return expiresAt === null || expiresAt > day;
}

/** A membership's level on `day`: null once it has expired. */
export function activeLevel(
  member: { accessLevel: number; expiresAt: string | null } | null | undefined,
  day: string,
): number | null {
  if (!member || !membershipActive(member.expiresAt, day)) return null;
  return member.accessLevel;
}
