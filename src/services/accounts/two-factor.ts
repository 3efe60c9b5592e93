/**
 * TOTP two-factor authentication (RFC 6238 via otpauth): enrolment with a pending secret, a
 * confirmation code, recovery codes shown once and stored as digests, and verification at sign-in
 * that refuses a code twice within its window.
 */
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import { randomBytes } from 'node:crypto';
import { digest, secretsEqual, verifyPassword } from '../../domain/secrets.js';
import { NotFoundError } from '../../domain/errors.js';
import type { UserRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';

const ISSUER = 'pulsegate';
const RECOVERY_CODES = 10;

export interface Enrolment {
  secret: string;
  uri: string;
  qrSvg: string;
}

export class TwoFactorService {
  /** Last accepted time step per user: a code works once (RFC 6238 §5.2). */
  private readonly lastStep = new Map<number, number>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** The user's row: secrets (OTP seed, recovery digests, password hash) never leave the service. */
  private async row(userId: number): Promise<UserRow> {
    const user = await this.store.users.byId(userId);
    if (!user) throw new NotFoundError('User');
    return user;
  }

  /** The pending secret (created on first visit) for a user who has not enabled 2FA yet. */
  async enrolment(userId: number): Promise<Enrolment> {
    const user = await this.row(userId);
    let secret = user.otp_secret;
    if (user.two_factor_enabled === 1 || secret === null) {
      secret = new OTPAuth.Secret({ size: 20 }).base32;
      await this.store.users.update(user.id, { otp_secret: secret });
    }
    const uri = this.totp(user, secret).toString();
    const qrSvg = await QRCode.toString(uri, { type: 'svg', margin: 2 });
    return { secret, uri, qrSvg };
  }

  /** Confirms enrolment with a current code; returns the recovery codes (shown once) or null. */
  async enable(userId: number, code: string): Promise<string[] | null> {
    const user = await this.row(userId);
    if (user.two_factor_enabled === 1 || user.otp_secret === null) return null;
    if (!this.acceptTotp(user, user.otp_secret, code)) return null;
    const codes = Array.from({ length: RECOVERY_CODES }, () => randomBytes(8).toString('hex'));
    await this.store.users.update(user.id, {
      two_factor_enabled: 1,
      otp_recovery_digests: codes.map((c) => digest(c)).join(' '),
    });
    return codes;
  }

  async disable(userId: number, password: string): Promise<boolean> {
    const user = await this.row(userId);
    if (!(await verifyPassword(password, user.password_hash))) return false;
    await this.store.users.update(user.id, {
      two_factor_enabled: 0,
      otp_secret: null,
      otp_recovery_digests: null,
    });
    return true;
  }

  /** A TOTP code, or a recovery code (consumed on use). */
  async verify(userId: number, code: string): Promise<boolean> {
    const user = await this.row(userId);
    if (user.two_factor_enabled !== 1 || user.otp_secret === null) return false;
    const trimmed = code.replace(/\s+/g, '');
    if (/^\d{6}$/.test(trimmed)) return this.acceptTotp(user, user.otp_secret, trimmed);
    const digests = (user.otp_recovery_digests ?? '').split(' ').filter(Boolean);
    const presented = digest(trimmed.toLowerCase());
    const match = digests.find((d) => secretsEqual(d, presented));
    if (!match) return false;
    await this.store.users.update(user.id, {
      otp_recovery_digests: digests.filter((d) => d !== match).join(' '),
    });
    return true;
  }

  /** The current code (tests and the CLI use it). */
  currentCode(secret: string, at = this.clock.now()): string {
    return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({
      timestamp: at,
    });
  }

  private acceptTotp(user: UserRow, secret: string, code: string): boolean {
    if (!/^\d{6}$/.test(code)) return false;
    const now = this.clock.now();
    const delta = this.totp(user, secret).validate({ token: code, timestamp: now, window: 1 });
    if (delta === null) return false;
    const step = Math.floor(now / 30_000) + delta;
    const last = this.lastStep.get(user.id);
    if (last !== undefined && step <= last) return false;
    this.lastStep.set(user.id, step);
    return true;
  }

  private totp(user: UserRow, secret: string): OTPAuth.TOTP {
    return new OTPAuth.TOTP({
      issuer: ISSUER,
      label: user.username,
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
      secret: OTPAuth.Secret.fromBase32(secret),
    });
  }
}
