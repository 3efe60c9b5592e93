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
import { HealthService } from './health.js';
import { PrometheusMetrics } from './metrics.js';
import { EventHooks } from './activity/event-hooks.js';
import { ContentService } from './content/content.js';

export interface Services {
  config: Config;
  clock: Clock;
  credentials: CredentialService;
  activity: ActivityService;
  /** The API rate limit's counters, shared by every process over the database. */
  requestBudget: RequestBudget;
  /** OAuth provider, sign-in, sessions, 2FA (also registers the OAuth token resolver). */
  oauth: OAuthServices;
  /** Readiness checks: the database answers, its migrations are current. */
  health: HealthService;
  /** Prometheus metrics of this server (`/-/metrics`); services record cache lookups in it. */
  metrics: PrometheusMetrics;
  /**
   * What runs when an event is written: inside the write's transaction (the webhook outbox) and
   * after it commits (live subscriptions). Register at start, before serving.
   */
  eventHooks: EventHooks;
  /** Every write (local wrapper on branch git-push: pushes only). */
  content: ContentService;
}

export function createServices(config: Config, store: Store, clock: Clock = systemClock): Services {
  const credentials = new CredentialService(store, clock);
  const metrics = new PrometheusMetrics(store);
  const eventHooks = new EventHooks();
  return {
    config,
    clock,
    credentials,
    activity: new ActivityService(store, clock, { pageCache: config.pageCache, metrics }),
    requestBudget: new RequestBudget(() => store.requestCounters, clock),
    oauth: createOAuthServices(config, store, clock, credentials),
    health: new HealthService(store),
    metrics,
    eventHooks,
    content: new ContentService(store, clock, eventHooks, (error) =>
      process.emitWarning(`an after-commit event hook failed: ${String(error)}`),
    ),
  };
}
