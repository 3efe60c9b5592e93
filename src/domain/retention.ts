/**
 * How long events are kept (`--retain-events`): a number of days, months or years, or forever.
 * GitLab keeps three years (PruneOldEventsWorker) and deletes 10,000 rows a batch; so do we by
 * default. Months and years are calendar months back from now, as Rails' `months_ago` counts
 * them: a day the earlier month lacks becomes its last day (31 March less a month is 28 or 29
 * February), so `1m` never reaches into the month after.
 */

export type RetentionUnit = 'd' | 'm' | 'y';

/** Null keeps every event. */
export type Retention = { amount: number; unit: RetentionUnit } | null;

export const DEFAULT_RETENTION = '3y';
/** GitLab's batch (PruneOldEventsWorker::DELETE_LIMIT). */
export const DEFAULT_PRUNE_BATCH = 10_000;

const FORM = /^([1-9]\d{0,5})([dmy])$/;
/** Beyond this the cutoff would precede any date a JavaScript Date can hold. */
const MAX_DAYS = 100 * 366;

/** `90d`, `18m`, `3y` or `0`; null for anything else. */
export function parseRetention(text: string): Retention | undefined {
  const value = text.trim();
  if (value === '0') return null;
  const match = FORM.exec(value);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = match[2] as RetentionUnit;
  const days = unit === 'd' ? amount : unit === 'm' ? amount * 31 : amount * 366;
  if (days > MAX_DAYS) return undefined;
  return { amount, unit };
}

/** What an operator reads back: `3y`, `18m`, `90d`, or `0` (keep everything). */
export function formatRetention(retention: Retention): string {
  return retention === null ? '0' : `${retention.amount}${retention.unit}`;
}

/** The instant before which events are pruned; null keeps everything. */
export function retentionCutoff(retention: Retention, now: number): number | null {
  if (retention === null) return null;
  if (retention.unit === 'd') return now - retention.amount * 86_400_000;
  const months = retention.unit === 'm' ? retention.amount : retention.amount * 12;
  const at = new Date(now);
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth() - months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(at.getUTCDate(), lastDay);
  const timeOfDay = now - Date.UTC(year, at.getUTCMonth(), at.getUTCDate());
  return Date.UTC(year, month, day) + timeOfDay;
}
