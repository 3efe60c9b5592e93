/**
 * Accounts and tokens created from the command line (`users create`, `tokens create`) and the
 * token `npm start` prints for the demo user. Validation uses the import format's rules, so a user
 * created here could have come from a file.
 */
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { isEmail, isUsername } from '../../domain/account-names.js';
import { validatePersonalToken } from '../../domain/personal-tokens.js';
import { hashPassword } from '../../domain/secrets.js';
import type { PersonalAccessTokenRow, UserRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { issuePersonalToken, utcDay } from './personal-tokens.js';

export const DEMO_TOKEN_NAME = 'npm start demo token';
const DEMO_TOKEN_DAYS = 7;
const DAY = 86_400_000;
/** Short enough to type, long enough that guessing is hopeless. */
const MIN_PASSWORD_LENGTH = 8;

export interface NewUser {
  username: string;
  email: string;
  name: string;
  password: string;
  admin?: boolean;
}

export interface NewToken {
  username: string;
  name: string;
  scopes: string;
  /** `YYYY-MM-DD` or undefined for a token that never expires. */
  expiresAt?: string | undefined;
}

export interface IssuedToken {
  /** The plaintext, shown once; only its digest is stored. */
  token: string;
  row: PersonalAccessTokenRow;
  user: UserRow;
}

/** Checks a new user's fields (no database needed): the CLI asks before it opens one. */
export function validateNewUser(input: NewUser): void {
  const problems: string[] = [];
  if (!isUsername(input.username)) problems.push('username has invalid characters');
  if (!isEmail(input.email)) problems.push('email is not an e-mail address');
  if (input.name.trim() === '') problems.push('name must not be empty');
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    problems.push(`password is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)`);
  }
  if (problems.length) throw new ValidationError(problems);
}

/** Checks a new token's name, scopes and expiry (no database needed). */
export function validateNewToken(input: NewToken, clock: Clock): void {
  const result = validatePersonalToken(input, utcDay(clock.now()));
  if ('problems' in result) throw new ValidationError(result.problems);
}

export class ProvisioningService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async createUser(input: NewUser): Promise<UserRow> {
    validateNewUser(input);
    if (await this.store.users.byUsername(input.username)) {
      throw new ValidationError(['username has already been taken']);
    }
    if (await this.store.users.byLogin(input.email)) {
      throw new ValidationError(['email has already been taken']);
    }
    return this.store.users.create({
      username: input.username,
      name: input.name,
      email: input.email,
      passwordHash: await hashPassword(input.password),
      admin: input.admin ?? false,
      createdAt: this.clock.now(),
    });
  }

  async createToken(input: NewToken): Promise<IssuedToken> {
    const user = await this.store.users.byUsername(input.username);
    if (!user) throw new NotFoundError('User');
    return { ...(await issuePersonalToken(this.store, this.clock, user.id, input)), user };
  }

  /**
   * A fresh token for the demo user, valid for a week; null when the database has no such user
   * (it holds someone's own data, not the demo set).
   */
  async demoToken(username: string): Promise<IssuedToken | null> {
    const user = await this.store.users.byUsername(username);
    if (!user || user.state !== 'active') return null;
    const expires = utcDay(this.clock.now() + DEMO_TOKEN_DAYS * DAY);
    const issued = await issuePersonalToken(this.store, this.clock, user.id, {
      name: DEMO_TOKEN_NAME,
      scopes: ['api'],
      expiresAt: expires,
    });
    return { ...issued, user };
  }
}
