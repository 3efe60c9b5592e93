/**
 * Browser sessions. The cookie holds 256 random bits; the database holds their digest. CSRF tokens
 * are HMACs keyed by the session id over a purpose string, so they need no storage, die with the
 * session, and a token minted for one purpose (e.g. one authorization request) fits no other.
 */
import { createHmac } from 'node:crypto';
import { digest, randomSecret, secretsEqual } from '../domain/secrets.js';
import type { WebSessionRow } from '../store/schema.js';
import type { SessionStore } from '../store/sessions.js';
import type { Clock } from './clock.js';

/** Anonymous sessions exist for the CSRF token of the sign-in form and the return path. */
const ANONYMOUS_TTL_MS = 60 * 60_000;
const SIGNED_IN_TTL_MS = 12 * 60 * 60_000;

export interface ActiveSession {
  /** The cookie value (plaintext session id). */
  id: string;
  row: WebSessionRow;
}

export class SessionService {
  constructor(
    private readonly sessions: SessionStore,
    private readonly clock: Clock,
  ) {}

  async load(cookieValue: string | undefined): Promise<ActiveSession | null> {
    if (!cookieValue || cookieValue.length > 200) return null;
    const row = await this.sessions.byDigest(digest(cookieValue));
    if (!row || row.expires_at <= this.clock.now()) return null;
    return { id: cookieValue, row };
  }

  async startAnonymous(returnTo: string | null = null): Promise<ActiveSession> {
    return this.create(null, null, returnTo, ANONYMOUS_TTL_MS);
  }

  async setReturnTo(session: ActiveSession, returnTo: string | null): Promise<void> {
    await this.sessions.update(session.row.id, { return_to: returnTo });
    session.row.return_to = returnTo;
  }

  /** Password accepted, second factor pending: same session, marked. */
  async markPending(session: ActiveSession, userId: number): Promise<void> {
    await this.sessions.update(session.row.id, { pending_user_id: userId });
    session.row.pending_user_id = userId;
  }

  /** A fresh session id on sign-in (no fixation); the return path carries over. */
  async signIn(previous: ActiveSession | null, userId: number): Promise<ActiveSession> {
    const returnTo = previous?.row.return_to ?? null;
    if (previous) await this.sessions.delete(previous.row.id);
    return this.create(userId, null, returnTo, SIGNED_IN_TTL_MS);
  }

  async clearReturnTo(session: ActiveSession): Promise<void> {
    if (session.row.return_to !== null) await this.setReturnTo(session, null);
  }

  async destroy(session: ActiveSession): Promise<void> {
    await this.sessions.delete(session.row.id);
  }

  csrfToken(session: ActiveSession, purpose: string): string {
    return createHmac('sha256', session.id).update(`csrf:${purpose}`).digest('base64url');
  }

  verifyCsrf(session: ActiveSession, purpose: string, presented: string | undefined): boolean {
    if (!presented) return false;
    return secretsEqual(this.csrfToken(session, purpose), presented);
  }

  private async create(
    userId: number | null,
    pendingUserId: number | null,
    returnTo: string | null,
    ttl: number,
  ): Promise<ActiveSession> {
    const now = this.clock.now();
    await this.sessions.deleteExpired(now);
    const id = randomSecret(32);
    const row = await this.sessions.create({
      idDigest: digest(id),
      userId,
      pendingUserId,
      returnTo,
      createdAt: now,
      expiresAt: now + ttl,
    });
    return { id, row };
  }
}
