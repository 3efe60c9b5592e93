/**
 * Who may sign in: password checks for the sign-in form and the password grant, with throttling
 * per account and per address, and the user's personal access tokens.
 */
import { OAuthError } from '../../domain/oauth.js';
import { verifyPassword } from '../../domain/secrets.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { issuePersonalToken } from './personal-tokens.js';
import type { ThrottleKind, ThrottleService } from './throttle.js';
import type { TwoFactorService } from './two-factor.js';
import { type PersonalTokenView, type UserView, personalTokenView, userView } from '../views.js';

export type PasswordCheck =
  | { outcome: 'ok'; user: UserView }
  | { outcome: 'two_factor_required'; user: UserView }
  | { outcome: 'invalid' };

export class AccountService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly throttle: ThrottleService,
    private readonly twoFactor: TwoFactorService,
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
    const view = userView(user);
    if (user.two_factor_enabled === 1) return { outcome: 'two_factor_required', user: view };
    return { outcome: 'ok', user: view };
  }

  /**
   * A second-factor code for a pending sign-in, throttled per account together with passwords:
   * the attempt is reserved before the code is verified, so parallel guesses get at most the
   * limit evaluated. ThrottledError when the account is locked.
   */
  async checkSecondFactor(userId: number, code: string): Promise<boolean> {
    const reservation = await this.throttle.reserve([['account', `user:${userId}`]]);
    let ok = false;
    try {
      ok = await this.twoFactor.verify(userId, code);
    } finally {
      if (ok) await this.throttle.succeeded(reservation, ['account']);
      else await this.throttle.failed(reservation);
    }
    return ok;
  }

  /** The password grant's view: any refusal is `invalid_grant`. */
  async userForPasswordGrant(login: string, password: string, address: string): Promise<UserView> {
    const result = await this.checkPassword(login, password, address, { refuseTwoFactor: true });
    if (result.outcome !== 'ok') throw new OAuthError('invalid_grant');
    return result.user;
  }

  /** The user behind a browser session, while the account may still sign in (active). */
  async activeUser(id: number): Promise<UserView | null> {
    const user = await this.store.users.byId(id);
    return user && user.state === 'active' ? userView(user) : null;
  }

  /** A user's name as pages show it (e.g. who registered an application), or null if gone. */
  async username(id: number): Promise<string | null> {
    return (await this.store.users.byId(id))?.username ?? null;
  }

  async listTokens(userId: number): Promise<PersonalTokenView[]> {
    return (await this.store.tokens.forUser(userId)).map(personalTokenView);
  }

  /** Returns the plaintext once; only its digest is stored. */
  async createToken(
    userId: number,
    input: { name: string; scopes: readonly string[]; expiresAt: string },
  ): Promise<{ token: string; view: PersonalTokenView }> {
    const { token, row } = await issuePersonalToken(this.store, this.clock, userId, input);
    return { token, view: personalTokenView(row) };
  }

  revokeToken(userId: number, id: number): Promise<boolean> {
    return this.store.tokens.revoke(id, userId);
  }
}
