/**
 * What a load balancer or orchestrator asks before sending traffic: is the database reachable
 * (a `select 1` that must answer within a bound) and does it carry every migration this code needs.
 * Messages name the failure, never the database URL or a driver's text (which may hold one).
 */
import { isDatabaseUnavailable } from '../store/connection-errors.js';
import type { Store } from '../store/store.js';

/**
 * What a request that failed because the database is out of reach is told to wait before trying
 * again (Retry-After): PostgreSQL restarts in seconds, and SQLite's write lock was already waited
 * on for its busy timeout.
 */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/**
 * Whether a request failed because the database cannot serve for the moment (down, restarting,
 * refusing connections, its write lock held too long) rather than because of the request: every
 * face answers it 503 with Retry-After, in its own shape, instead of a 500.
 */
export function isTemporarilyUnavailable(error: unknown): boolean {
  return isDatabaseUnavailable(error);
}

/** How long the readiness `select 1` may take before the database counts as unreachable. */
export const READINESS_TIMEOUT_MS = 2_000;

export interface CheckResult {
  status: 'ok' | 'failed';
  message?: string;
}

export interface Readiness {
  ok: boolean;
  checks: { db_check: CheckResult; migrations_check: CheckResult };
}

class TimedOut extends Error {}

export class HealthService {
  constructor(
    private readonly store: Store,
    private readonly timeoutMs: number = READINESS_TIMEOUT_MS,
  ) {}

  async readiness(): Promise<Readiness> {
    const db_check = await this.bounded(
      () => this.store.ping(),
      'database',
      'database unreachable',
    );
    const migrations_check: CheckResult =
      db_check.status === 'ok'
        ? await this.bounded(
            async () => {
              const pending = await this.store.pendingMigrations();
              if (pending.length > 0) {
                throw new PendingMigrations(`pending migrations: ${pending.join(', ')}`);
              }
            },
            'migrations',
            'migrations could not be read',
          )
        : { status: 'failed', message: 'database unreachable' };
    return {
      ok: db_check.status === 'ok' && migrations_check.status === 'ok',
      checks: { db_check, migrations_check },
    };
  }

  private async bounded(
    work: () => Promise<void>,
    what: string,
    failure: string,
  ): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimedOut()), this.timeoutMs);
    });
    try {
      await Promise.race([work(), deadline]);
      return { status: 'ok' };
    } catch (error) {
      if (error instanceof PendingMigrations) return { status: 'failed', message: error.message };
      if (error instanceof TimedOut) {
        return { status: 'failed', message: `${what} check timed out after ${this.timeoutMs} ms` };
      }
      return { status: 'failed', message: failure };
    } finally {
      clearTimeout(timer);
    }
  }
}

class PendingMigrations extends Error {}
