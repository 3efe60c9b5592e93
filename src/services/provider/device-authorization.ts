/**
 * The device authorization grant (RFC 8628) as GitLab offers it: any registered application may
 * start one (confidential ones authenticate), the signed-in user enters the user code, sees which
 * application asks for what, and approves or denies; the device polls the token endpoint and gets
 * its tokens exactly once. Both codes are stored as digests; user-code guesses are throttled per
 * session, user and address.
 */
import {
  DEVICE_CODE_TTL_S,
  DEVICE_POLL_INTERVAL_S,
  POLL_TOLERANCE_MS,
  SLOW_DOWN_STEP_S,
  formatUserCode,
  newUserCode,
  normalizeUserCode,
} from '../../domain/device-codes.js';
import { OAuthError, missingParameter, resolveScopes, splitScopes } from '../../domain/oauth.js';
import type { Scope } from '../../domain/scopes.js';
import { digest, randomSecret } from '../../domain/secrets.js';
import type { DeviceGrantStore } from '../../store/device-grants.js';
import type { OAuthStore } from '../../store/oauth.js';
import type { OAuthApplicationRow, OAuthDeviceGrantRow } from '../../store/schema.js';
import type { ApplicationView } from '../views.js';
import type { Clock } from '../clock.js';
import { type ApplicationService, applicationScopes } from './clients.js';
import type { OAuthTokenService, TokenResponse } from './tokens.js';
import type { ThrottleKind, ThrottleService } from '../accounts/throttle.js';

/** RFC 8628 §3.2. */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** A pending request as the confirmation page shows it. */
export interface PendingDevice {
  userCode: string;
  app: ApplicationView;
  scopes: Scope[];
}

/** Who is entering a code: every failed guess counts against each of these. */
export interface GuessSource {
  sessionId: number;
  userId: number;
  address: string;
}

/** Old device grants are forgotten a day after they were created. */
const PRUNE_AFTER_MS = 24 * 60 * 60_000;

export class DeviceAuthorizationService {
  constructor(
    private readonly grants: DeviceGrantStore,
    private readonly oauth: OAuthStore,
    private readonly applications: ApplicationService,
    private readonly tokens: OAuthTokenService,
    private readonly throttle: ThrottleService,
    private readonly clock: Clock,
    private readonly issuer: () => string,
  ) {}

  /** `POST /oauth/authorize_device`: the client is already authenticated. */
  async start(
    app: OAuthApplicationRow,
    scope: string | undefined,
  ): Promise<DeviceAuthorizationResponse> {
    const scopes = resolveScopes(scope, applicationScopes(app), applicationScopes(app));
    const now = this.clock.now();
    await this.grants.prune(now - PRUNE_AFTER_MS);
    const deviceCode = randomSecret(32);
    for (;;) {
      const userCode = newUserCode();
      const row = await this.grants.create({
        deviceCodeDigest: digest(deviceCode),
        userCodeDigest: digest(normalizeUserCode(userCode)!),
        applicationId: app.id,
        scopes,
        createdAt: now,
        expiresIn: DEVICE_CODE_TTL_S,
        pollInterval: DEVICE_POLL_INTERVAL_S,
      });
      // A collision with a stored user code (rare: 20^8 codes) just draws another.
      if (!row) continue;
      const verification = `${this.issuer()}/oauth/device`;
      return {
        device_code: deviceCode,
        user_code: userCode,
        verification_uri: verification,
        verification_uri_complete: `${verification}?${new URLSearchParams({ user_code: userCode })}`,
        expires_in: DEVICE_CODE_TTL_S,
        interval: DEVICE_POLL_INTERVAL_S,
      };
    }
  }

  /**
   * The pending request a typed user code names, or null (malformed, unknown, expired, decided).
   * Throws ThrottledError once a source has guessed wrong too often — even for a right code.
   */
  async lookup(input: string, source: GuessSource): Promise<PendingDevice | null> {
    // Reserved before the code is looked up, so parallel guesses get at most the limit checked.
    const reservation = await this.throttle.reserve(guessKeys(source));
    let found: PendingDevice | null = null;
    try {
      found = await this.find(input);
    } finally {
      if (found) await this.throttle.succeeded(reservation);
      else await this.throttle.failed(reservation);
    }
    return found;
  }

  private async find(input: string): Promise<PendingDevice | null> {
    const normalized = normalizeUserCode(input);
    const row = normalized === null ? undefined : await this.grants.byUserCode(digest(normalized));
    const app =
      row && this.isPending(row) ? await this.applications.byId(row.application_id) : undefined;
    if (!row || !app) return null;
    return { userCode: formatUserCode(normalized!), app, scopes: splitScopes(row.scopes) };
  }

  /** Approves or denies the request; false when the code no longer names a pending request. */
  async decide(
    input: string,
    source: GuessSource,
    decision: { approve: boolean; authTime: number | null },
  ): Promise<PendingDevice | null> {
    const pending = await this.lookup(input, source);
    if (!pending) return null;
    const row = await this.grants.byUserCode(digest(normalizeUserCode(pending.userCode)!));
    const decided =
      row !== undefined &&
      (await this.grants.decide(
        row.id,
        {
          status: decision.approve ? 'approved' : 'denied',
          userId: source.userId,
          authTime: decision.authTime,
        },
        this.clock.now(),
      ));
    return decided ? pending : null;
  }

  /**
   * The token endpoint's device_code grant (RFC 8628 §3.4, §3.5). A device code presented after
   * its tokens were issued is a replay: invalid_grant, and those tokens are revoked (as for a
   * replayed authorization code).
   */
  async exchange(
    client: OAuthApplicationRow,
    deviceCode: string | undefined,
  ): Promise<TokenResponse> {
    if (deviceCode === undefined) {
      throw new OAuthError('invalid_request', missingParameter('device_code'));
    }
    const row =
      deviceCode.length <= 200 ? await this.grants.byDeviceCode(digest(deviceCode)) : undefined;
    if (!row || row.application_id !== client.id) throw new OAuthError('invalid_grant');
    const now = this.clock.now();
    if (row.consumed_at !== null) {
      if (row.family_id !== null) await this.oauth.revokeFamily(row.family_id, now);
      throw new OAuthError('invalid_grant');
    }
    if (row.status === 'denied') throw new OAuthError('access_denied');
    if (now >= row.created_at + row.expires_in * 1000) throw new OAuthError('expired_token');
    if (!(await this.grants.recordPoll(row.id, now, POLL_TOLERANCE_MS, SLOW_DOWN_STEP_S))) {
      throw new OAuthError('slow_down');
    }
    if (row.status !== 'approved' || row.user_id === null) {
      throw new OAuthError('authorization_pending');
    }
    return this.tokens.issuePair(
      {
        applicationId: client.id,
        userId: row.user_id,
        scopes: splitScopes(row.scopes),
        grantId: null,
        authTime: row.auth_time,
      },
      (token) => this.grants.consumeAndIssue(row.id, now, token),
    );
  }

  private isPending(row: OAuthDeviceGrantRow): boolean {
    return row.status === 'pending' && this.clock.now() < row.created_at + row.expires_in * 1000;
  }
}

/**
 * Throttle keys for user-code guesses. They reuse the sign-in policies (5 per account-like key,
 * 20 per address, in 10 minutes) under their own names, so device guesses never lock sign-in.
 */
function guessKeys(source: GuessSource): Array<[ThrottleKind, string]> {
  return [
    ['account', `device-session:${source.sessionId}`],
    ['account', `device-user:${source.userId}`],
    ['address', `device:${source.address}`],
  ];
}
