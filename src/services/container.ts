/**
 * The services every face receives, built once per server by the composition root. The store is
 * not among them: faces reach data only through these services (eslint keeps it so).
 */
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import { ActivityService } from './activity/activity.js';
import { type Clock, systemClock } from './clock.js';
import { CredentialService } from './accounts/credentials.js';
import { type OAuthServices, createOAuthServices } from './provider/provider.js';
import { RequestBudget } from './accounts/request-budget.js';

export interface Services {
  config: Config;
  clock: Clock;
  credentials: CredentialService;
  activity: ActivityService;
  /** The API rate limit's counters, shared by every process over the database. */
  requestBudget: RequestBudget;
  /** OAuth provider, sign-in, sessions, 2FA (also registers the OAuth token resolver). */
  oauth: OAuthServices;
}

export function createServices(config: Config, store: Store, clock: Clock = systemClock): Services {
  const credentials = new CredentialService(store, clock);
  return {
    config,
    clock,
    credentials,
    activity: new ActivityService(store, clock, { pageCache: config.pageCache }),
    requestBudget: new RequestBudget(() => store.requestCounters, clock),
    oauth: createOAuthServices(config, store, clock, credentials),
  };
}
