/**
 * Who may sign in: password checks for the sign-in form and the password grant, with throttling
 * per account and per address, and the user's personal access tokens.
 */
import { OAuthError } from '../domain/oauth.js';
import { verifyPassword } from '../domain/secrets.js';
import type { PersonalAccessTokenRow, UserRow } from '../store/schema.js';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { issuePersonalToken } from './personal-tokens.js';
import type { ThrottleKind, ThrottleService } from './throttle.js';

export type PasswordCheck =
  | { outcome: 'ok'; user: UserRow }
  | { outcome: 'two_factor_required'; user: UserRow }
  | { outcome: 'invalid' };

export class AccountService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly throttle: ThrottleService,
  ) {}

  /**
   * Checks a login (username or e-mail) and password. Locked accounts and addresses are refused
   * before anything else (ThrottledError), even with the right password. The attempt is counted
   * against the account and the address before the password is verified, so parallel guesses
   * cannot outrun the limit; a success clears the account and gives the address its attempt
   * back. Unknown users cost a full scrypt too, so they cannot be told apart by timing or by answer.
   */
  async checkPassword(
    login: string,
    password: string,
    address: string,
    options: { refuseTwoFactor: boolean },
  ): Promise<PasswordCheck> {
    const lower = login.toLowerCase();
    const user = login.length <= 255 ? await this.store.users.byLogin(login) : undefined;
    const accountKey = user ? `user:${user.id}` : `login:${lower}`;
    const keys: [ThrottleKind, string][] = [
      ['account', accountKey],
      ['address', address],
    ];
    // GitLab refuses 2FA accounts on the password grant before checking the password, so the
    // account's failure counter does not move (nothing is verified, so nothing is reserved).
    if (options.refuseTwoFactor && user && user.two_factor_enabled === 1) {
      await this.throttle.check(keys);
      return { outcome: 'invalid' };
    }
    const reservation = await this.throttle.reserve(keys);
    let ok: boolean;
    try {
      ok = await verifyPassword(password, user?.password_hash ?? null);
    } catch (error) {
      await this.throttle.failed(reservation);
      throw error;
    }
    if (!ok || !user || user.state !== 'active') {
      await this.throttle.failed(reservation);
      return { outcome: 'invalid' };
    }
    await this.throttle.succeeded(reservation, ['account']);
    if (user.two_factor_enabled === 1) return { outcome: 'two_factor_required', user };
    return { outcome: 'ok', user };
  }

  /** The password grant's view: any refusal is `invalid_grant`. */
  async userForPasswordGrant(login: string, password: string, address: string): Promise<UserRow> {
    const result = await this.checkPassword(login, password, address, { refuseTwoFactor: true });
    if (result.outcome !== 'ok') throw new OAuthError('invalid_grant');
    return result.user;
  }

  listTokens(userId: number): Promise<PersonalAccessTokenRow[]> {
    return this.store.tokens.forUser(userId);
  }

  /** Returns the plaintext once; only its digest is stored. */
  createToken(
    userId: number,
    input: { name: string; scopes: readonly string[]; expiresAt: string },
  ): Promise<{ token: string; row: PersonalAccessTokenRow }> {
    return issuePersonalToken(this.store, this.clock, userId, input);
  }

  revokeToken(userId: number, id: number): Promise<boolean> {
    return this.store.tokens.revoke(id, userId);
  }
}
