/**
 * RFC 8628 device authorizations. Both codes are looked up by digest. Every state change is a
 * conditional UPDATE: deciding only a pending grant, recording a poll only when the interval has
 * passed, and consuming an approved grant once, in the same transaction as its token.
 */
import { type Kysely, sql } from 'kysely';
import { type NewToken, issueOnce } from './oauth.js';
import { rowBy } from './rows.js';
import type { Database, OAuthDeviceGrantRow, OAuthTokenRow } from './schema.js';

export interface NewDeviceGrant {
  deviceCodeDigest: string;
  userCodeDigest: string;
  applicationId: number;
  scopes: readonly string[];
  createdAt: number;
  expiresIn: number;
  pollInterval: number;
}

export class DeviceGrantStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** The new row, or null when the user code collides with a stored one (draw another). */
  async create(grant: NewDeviceGrant): Promise<OAuthDeviceGrantRow | null> {
    const row = await this.db
      .insertInto('oauth_device_grants')
      .values({
        device_code_digest: grant.deviceCodeDigest,
        user_code_digest: grant.userCodeDigest,
        application_id: grant.applicationId,
        scopes: grant.scopes.join(' '),
        created_at: grant.createdAt,
        expires_in: grant.expiresIn,
        poll_interval: grant.pollInterval,
        status: 'pending',
      })
      .onConflict((oc) => oc.column('user_code_digest').doNothing())
      .returningAll()
      .executeTakeFirst();
    return row ?? null;
  }

  byDeviceCode(digest: string): Promise<OAuthDeviceGrantRow | undefined> {
    return rowBy(this.db, 'oauth_device_grants', { device_code_digest: digest });
  }

  byUserCode(digest: string): Promise<OAuthDeviceGrantRow | undefined> {
    return rowBy(this.db, 'oauth_device_grants', { user_code_digest: digest });
  }

  /** Approves or denies a pending, unexpired grant; false when it was no longer pending. */
  async decide(
    id: number,
    decision: { status: 'approved' | 'denied'; userId: number; authTime: number | null },
    now: number,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_device_grants')
      .set({
        status: decision.status,
        user_id: decision.userId,
        auth_time: decision.authTime,
        decided_at: now,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where(sql<boolean>`created_at + expires_in * 1000 > ${now}`)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Records a poll unless it comes sooner than the interval (less `toleranceMs`) after the
   * previous one; then the interval grows by `stepS` instead (slow_down) and false is returned.
   * Atomic, so two polls racing cannot both pass.
   */
  async recordPoll(id: number, now: number, toleranceMs: number, stepS: number): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_device_grants')
      .set({ last_polled_at: now })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('last_polled_at', 'is', null),
          eb(sql<number>`last_polled_at + poll_interval * 1000`, '<=', now + toleranceMs),
        ]),
      )
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) return true;
    await this.db
      .updateTable('oauth_device_grants')
      .set({ poll_interval: sql<number>`poll_interval + ${stepS}`, last_polled_at: now })
      .where('id', '=', id)
      .execute();
    return false;
  }

  /** Consumes an approved grant and stores its token; null when another request won. */
  async consumeAndIssue(id: number, now: number, token: NewToken): Promise<OAuthTokenRow | null> {
    return issueOnce(
      this.db,
      (trx) =>
        trx
          .updateTable('oauth_device_grants')
          .set({ consumed_at: now, family_id: token.familyId })
          .where('id', '=', id)
          .where('status', '=', 'approved')
          .where('consumed_at', 'is', null)
          .executeTakeFirst(),
      token,
    );
  }

  /** Forgets grants created before `before` (long expired; their codes can be drawn again). */
  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('oauth_device_grants').where('created_at', '<', before).execute();
  }
}
