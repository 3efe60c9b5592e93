// "just now", "5 minutes ago", "2 days ago": GitLab's timeago wording. The server renders it into
// each <time> and the activity pages' script (live.js) keeps it current, so both use this module.

const UNITS = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['week', 7 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

export function relativeTime(then, now) {
  const seconds = Math.floor((now - then) / 1000);
  // A clock a little ahead of ours reads as now, not as the future.
  if (seconds < 60) return 'just now';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(seconds / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

/** The exact time shown on hover: `2026-01-15 12:00:00 UTC`. */
export function exactTime(then) {
  return `${new Date(then).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
