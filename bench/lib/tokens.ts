/** A personal access token for the benchmark's user, minted the way the product mints them. */
import { systemClock } from '../../src/services/clock.js';
import { issuePersonalToken } from '../../src/services/accounts/personal-tokens.js';
import type { Store } from '../../src/store/store.js';

export async function benchToken(
  store: Store,
  userId: number,
  scopes: readonly string[] = ['api'],
): Promise<string> {
  const { token } = await issuePersonalToken(store, systemClock, userId, {
    name: 'bench',
    scopes,
  });
  return token;
}
