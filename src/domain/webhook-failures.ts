/**
 * What a failed delivery does: to the delivery, a retry later with exponential back-off and
 * jitter (the same Idempotency-Key each time) until it gives up; to the hook, GitLab's
 * auto-disabling (WebHooks::AutoDisabling): after 4 consecutive failures it is disabled for one
 * minute, doubling up to a day with each further failure, and after 40 it is disabled for good.
 * One success clears it all.
 */

/** Attempts per delivery, the first included. */
export const MAX_ATTEMPTS = 8;
/** First retry after about this long; each further one waits twice as long. */
export const RETRY_BASE_MS = 10_000;
export const RETRY_MAX_MS = 60 * 60_000;

/** Consecutive failures tolerated before the hook is disabled for a while (GitLab: > 3). */
export const TEMPORARY_FAILURE_THRESHOLD = 3;
/** Consecutive failures after which the hook is disabled until edited (GitLab: 40). */
export const PERMANENT_FAILURE_LIMIT = 40;
export const INITIAL_DISABLE_MS = 60_000;
export const MAX_DISABLE_MS = 24 * 60 * 60_000;

/**
 * Delay before attempt `attempts + 1`, having made `attempts` (≥ 1): half fixed, half random, so
 * hooks that failed together do not all come back at the same instant.
 */
export function retryDelay(attempts: number, random: number): number {
  const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

export interface HookHealth {
  recentFailures: number;
  backoffCount: number;
  disabledUntil: number | null;
  permanentlyDisabled: boolean;
}

export const HEALTHY: HookHealth = {
  recentFailures: 0,
  backoffCount: 0,
  disabledUntil: null,
  permanentlyDisabled: false,
};

/** The hook after one more failed delivery at `now`. */
export function afterFailure(health: HookHealth, now: number): HookHealth {
  const recentFailures = health.recentFailures + 1;
  if (recentFailures >= PERMANENT_FAILURE_LIMIT) {
    return {
      recentFailures,
      backoffCount: health.backoffCount,
      disabledUntil: null,
      permanentlyDisabled: true,
    };
  }
  if (recentFailures > TEMPORARY_FAILURE_THRESHOLD) {
    const wait = Math.min(MAX_DISABLE_MS, INITIAL_DISABLE_MS * 2 ** health.backoffCount);
    return {
      recentFailures,
      backoffCount: health.backoffCount + 1,
      disabledUntil: now + wait,
      permanentlyDisabled: false,
    };
  }
  return { ...health, recentFailures };
}

export type AlertStatus = 'executable' | 'temporarily_disabled' | 'disabled';

/** GitLab's `alert_status` of a hook at `now`. */
export function alertStatus(health: HookHealth, now: number): AlertStatus {
  if (health.permanentlyDisabled) return 'disabled';
  if (health.disabledUntil !== null && health.disabledUntil > now) return 'temporarily_disabled';
  return 'executable';
}
