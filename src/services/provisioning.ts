/**
 * Accounts and tokens created from the command line (`users create`, `tokens create`) and the
 * token `npm start` prints for the demo user. Validation uses the import format's rules, so a user
 * created here could have come from a file.
 */
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { isCalendarDay, isEmail, isUsername } from '../domain/records.js';
import { parseScopeList, type Scope } from '../domain/scopes.js';
import { digest, hashPassword, randomSecret } from '../domain/secrets.js';
import type { PersonalAccessTokenRow, UserRow } from '../store/schema.js';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { DEMO_USERNAME } from './demo-catalog.js';

export const PAT_PREFIX = 'glpat-';
export const DEMO_TOKEN_NAME = 'npm start demo token';
const DEMO_TOKEN_DAYS = 7;
const DAY = 86_400_000;
/** Short enough to type, long enough that guessing is hopeless. */
const MIN_PASSWORD_LENGTH = 8;

/** A new personal access token: `glpat-` and 160 random bits (base64url). */
export function newPersonalAccessToken(): string {
  return `${PAT_PREFIX}${randomSecret(20)}`;
}

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

export class ProvisioningService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async createUser(input: NewUser): Promise<UserRow> {
    const problems: string[] = [];
    if (!isUsername(input.username)) problems.push('username has invalid characters');
    if (!isEmail(input.email)) problems.push('email is not an e-mail address');
    if (input.name.trim() === '') problems.push('name must not be empty');
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      problems.push(`password is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)`);
    }
    if (problems.length) throw new ValidationError(problems);
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
    const { scopes, unknown } = parseScopeList(input.scopes);
    const problems: string[] = [];
    if (unknown.length) problems.push(`scopes has unknown scope ${unknown.join(', ')}`);
    else if (scopes.length === 0) problems.push('scopes must name at least one scope');
    if (input.name.trim() === '') problems.push('name must not be empty');
    if (input.expiresAt !== undefined) {
      if (!isCalendarDay(input.expiresAt)) problems.push('expires_at must be a date YYYY-MM-DD');
      else if (input.expiresAt <= today(this.clock.now())) {
        problems.push('expires_at must be in the future');
      }
    }
    if (problems.length) throw new ValidationError(problems);
    return this.issue(user, input.name, scopes, input.expiresAt ?? null);
  }

  /**
   * A fresh token for the demo user, valid for a week; null when the database has no such user
   * (it holds someone's own data, not the demo set).
   */
  async demoToken(): Promise<IssuedToken | null> {
    const user = await this.store.users.byUsername(DEMO_USERNAME);
    if (!user || user.state !== 'active') return null;
    const expires = today(this.clock.now() + DEMO_TOKEN_DAYS * DAY);
    return this.issue(user, DEMO_TOKEN_NAME, ['api'], expires);
  }

  private async issue(
    user: UserRow,
    name: string,
    scopes: readonly Scope[],
    expiresAt: string | null,
  ): Promise<IssuedToken> {
    const token = newPersonalAccessToken();
    const row = await this.store.tokens.create({
      userId: user.id,
      name,
      tokenDigest: digest(token),
      scopes,
      expiresAt,
      createdAt: this.clock.now(),
    });
    return { token, row, user };
  }
}

function today(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
