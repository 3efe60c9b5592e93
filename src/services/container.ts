/** The services every face receives. Built once per server by the composition root. */
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import { ActivityService } from './activity.js';
import { type Clock, systemClock } from './clock.js';
import { CredentialService } from './credentials.js';

export interface Services {
  config: Config;
  store: Store;
  clock: Clock;
  credentials: CredentialService;
  activity: ActivityService;
}

export function createServices(config: Config, store: Store, clock: Clock = systemClock): Services {
  return {
    config,
    store,
    clock,
    credentials: new CredentialService(store, clock),
    activity: new ActivityService(store, clock),
  };
}
