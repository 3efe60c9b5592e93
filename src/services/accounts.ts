/**
 * Who may sign in: password checks for the sign-in form and the password grant, with throttling
 * per account and per address, and the user's personal access tokens.
 */
import { OAuthError } from '../domain/oauth.js';
import { verifyPassword } from '../domain/secrets.js';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { issuePersonalToken } from './personal-tokens.js';
import type { ThrottleKind, ThrottleService } from './throttle.js';
import { type PersonalTokenView, type UserView, personalTokenView, userView } from './views.js';

export type PasswordCheck =
  | { outcome: 'ok'; user: UserView }
  | { outcome: 'two_factor_required'; user: UserView }
  | { outcome: 'invalid' };

export class AccountService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly throttle: ThrottleService,
  ) {}

  /**
   * Checks a login (username or e-mail) and password. Locked accounts and addresses are refused
   * before anything else (ThrottledError), even with the right password. Unknown users cost a
   * full scrypt too, so they cannot be told apart by timing or by answer.
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
    await this.throttle.check(keys);
    // GitLab refuses 2FA accounts on the password grant before checking the password, so the
    // account's failure counter does not move.
    if (options.refuseTwoFactor && user && user.two_factor_enabled === 1) {
      return { outcome: 'invalid' };
    }
    const ok = await verifyPassword(password, user?.password_hash ?? null);
    if (!ok || !user || user.state !== 'active') {
      await this.throttle.fail(keys);
      return { outcome: 'invalid' };
    }
    await this.throttle.reset('account', accountKey);
    const view = userView(user);
    if (user.two_factor_enabled === 1) return { outcome: 'two_factor_required', user: view };
    return { outcome: 'ok', user: view };
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
