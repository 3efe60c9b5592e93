/**
 * What a failed delivery does. To the hook, GitLab's auto-disabling (WebHooks::AutoDisabling):
 * after 4 consecutive failures it is disabled for one minute, doubling up to a day with each
 * further failure, and after 40 it is disabled for good; one success clears it all. A failing
 * hook is retried as a whole: its deliveries wait until its next try (a few seconds after the
 * first failures, growing; the end of a temporary disable after the fourth) and then go together.
 * The failures of attempts made together (one batch, several processes at once, or anything that
 * started before the hook's next try) are ONE step, so a queue of deliveries failing in one outage
 * counts once, not once each. To the delivery, a retry with the hook (the same Idempotency-Key
 * each time); it is given up after MAX_ATTEMPTS only while its hook works for others: the
 * deliveries of a disabled hook wait for it, within the retention (UNDELIVERED_RETENTION_MS).
 */

/** Attempts per delivery, the first included, while its hook works for other deliveries. */
export const MAX_ATTEMPTS = 8;
/** A failing hook is tried again after about this long; each further failure doubles it. */
export const RETRY_BASE_MS = 10_000;
export const RETRY_MAX_MS = 60 * 60_000;

/** Consecutive failures tolerated before the hook is disabled for a while (GitLab: > 3). */
export const TEMPORARY_FAILURE_THRESHOLD = 3;
/** Consecutive failures after which the hook is disabled until edited (GitLab: 40). */
export const PERMANENT_FAILURE_LIMIT = 40;
export const INITIAL_DISABLE_MS = 60_000;
export const MAX_DISABLE_MS = 24 * 60 * 60_000;

/**
 * How long a hook that has failed `attempts` times in a row (≥ 1) waits before its next try, until
 * the temporary disable takes over: half fixed, half random, so hooks that failed together do not
 * all come back at the same instant.
 */
export function retryDelay(attempts: number, random: number): number {
  const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

/**
 * How long a delivery that was not delivered is kept for its hook, from when it was written:
 * through temporary disables, and while a hook disabled for good waits to be enabled again. Then
 * it is given up (status `failed`, with the reason) and stays in the log as long again.
 */
export const UNDELIVERED_RETENTION_MS = 7 * 24 * 60 * 60_000;

export interface HookHealth {
  recentFailures: number;
  backoffCount: number;
  disabledUntil: number | null;
  permanentlyDisabled: boolean;
  /** The failing hook's next try: nothing is sent to it before. */
  retryAt: number | null;
}

export const HEALTHY: HookHealth = {
  recentFailures: 0,
  backoffCount: 0,
  disabledUntil: null,
  permanentlyDisabled: false,
  retryAt: null,
};

/**
 * The hook after an attempt that started at `startedAt` failed at `now`, and whether that was a
 * new step of its back-off. An attempt that started before the hook's next try was made together
 * with the failure that set it (a batch, another process) or while it was disabled: it counts for
 * nothing more.
 */
export function afterFailedAttempt(
  health: HookHealth,
  startedAt: number,
  now: number,
  random: number,
): { health: HookHealth; step: boolean } {
  if (health.permanentlyDisabled) return { health, step: false };
  if (health.retryAt !== null && startedAt < health.retryAt) return { health, step: false };
  const next = afterFailure(health, now);
  const retryAt = next.permanentlyDisabled
    ? null
    : (next.disabledUntil ?? now + retryDelay(next.recentFailures, random));
  return { health: { ...next, retryAt }, step: true };
}

/**
 * After a failed attempt with `attempts` made: given up only when the hook works for others
 * (not disabled) and the delivery has had all its attempts; otherwise retried with the hook.
 */
export function afterDeliveryFailure(
  health: HookHealth,
  attempts: number,
  now: number,
): { giveUp: boolean; nextAttemptAt: number } {
  const giveUp = attempts >= MAX_ATTEMPTS && alertStatus(health, now) === 'executable';
  return { giveUp, nextAttemptAt: giveUp ? now : Math.max(now, health.retryAt ?? now) };
}

/** The hook after one more failure at `now` (one step of GitLab's counting). */
export function afterFailure(health: HookHealth, now: number): HookHealth {
  const recentFailures = health.recentFailures + 1;
  if (recentFailures >= PERMANENT_FAILURE_LIMIT) {
    return {
      recentFailures,
      backoffCount: health.backoffCount,
      disabledUntil: null,
      permanentlyDisabled: true,
      retryAt: null,
    };
  }
  if (recentFailures > TEMPORARY_FAILURE_THRESHOLD) {
    const wait = Math.min(MAX_DISABLE_MS, INITIAL_DISABLE_MS * 2 ** health.backoffCount);
    return {
      recentFailures,
      backoffCount: health.backoffCount + 1,
      disabledUntil: now + wait,
      permanentlyDisabled: false,
      retryAt: now + wait,
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
