/**
 * Feed tokens (GitLab's `feed_token`): one per user, read access to that user's Atom feeds only.
 *
 * A token is derived, not drawn: HMAC-SHA256 under a server secret (`store.secrets`) of the user id
 * and a per-user generation. The profile page can therefore show it again at any time while the
 * database keeps only its SHA-256 digest (to find the user from a presented token) and the
 * generation; a reset moves the generation, so the old token stops matching at once. The digest
 * lookup reveals nothing about the plaintext's prefix, and the found token is recomputed and
 * compared in constant time.
 */
import { createHmac } from 'node:crypto';
import { digest, randomSecret, secretsEqual } from '../../domain/secrets.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { type UserView, userView } from '../views.js';

const SECRET_NAME = 'feed_token_hmac';
const PREFIX = 'glft-';
/** `glft-` and 32 base64url characters (192 bits of HMAC). */
const SHAPE = /^glft-[A-Za-z0-9_-]{32}$/;

export class FeedTokens {
  private secret: Promise<string> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  private key(): Promise<string> {
    this.secret ??= this.store.secrets.getOrCreate(SECRET_NAME, randomSecret(), this.clock.now());
    return this.secret;
  }

  private async derive(userId: number, generation: number): Promise<string> {
    const mac = createHmac('sha256', await this.key())
      .update(`feed_token:${userId}:${generation}`)
      .digest('base64url');
    return `${PREFIX}${mac.slice(0, 32)}`;
  }

  /** The user's current feed token, created on first use. */
  async tokenFor(userId: number): Promise<string> {
    let record = await this.store.feedTokens.byUser(userId);
    if (!record) {
      const first = await this.derive(userId, 1);
      await this.store.feedTokens.ensure(userId, digest(first), this.clock.now());
      record = (await this.store.feedTokens.byUser(userId))!;
    }
    return this.derive(userId, record.generation);
  }

  /** A new token for the user; the previous one no longer authenticates. Returns the new one. */
  async reset(userId: number): Promise<string> {
    await this.tokenFor(userId);
    return this.store.transaction(async (tx) => {
      const record = (await tx.feedTokens.byUser(userId))!;
      const generation = record.generation + 1;
      const token = await this.derive(userId, generation);
      await tx.feedTokens.replace(userId, generation, digest(token), this.clock.now());
      return token;
    });
  }

  /** The active user a presented feed token belongs to, or null (unknown, reset, blocked). */
  async authenticate(token: string): Promise<UserView | null> {
    if (!SHAPE.test(token)) return null;
    const record = await this.store.feedTokens.byDigest(digest(token));
    if (!record) return null;
    const expected = await this.derive(record.userId, record.generation);
    if (!secretsEqual(expected, token)) return null;
    const user = await this.store.users.byId(record.userId);
    if (!user || user.state !== 'active') return null;
    return userView(user);
  }
}
