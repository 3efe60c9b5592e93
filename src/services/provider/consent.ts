/**
 * Standing consent, for `prompt=none`: the user has already granted this application at least
 * these scopes, through a token that can still be used or refreshed. Revoking the tokens (or
 * deleting the application) withdraws it.
 */
import { splitScopes } from '../../domain/oauth.js';
import type { Scope } from '../../domain/scopes.js';
import type { IdentityStore } from '../../store/identity.js';
import type { Clock } from '../clock.js';

export class ConsentService {
  constructor(
    private readonly identity: IdentityStore,
    private readonly clock: Clock,
  ) {}

  async given(userId: number, applicationId: number, scopes: readonly Scope[]): Promise<boolean> {
    const lists = await this.identity.standingScopes(userId, applicationId, this.clock.now());
    return lists.some((list) => {
      const granted = splitScopes(list);
      return scopes.every((s) => granted.includes(s));
    });
  }
}
