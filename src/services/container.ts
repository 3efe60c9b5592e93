/**
 * The services every face receives, built once per server by the composition root. The store is
 * not among them: faces reach data only through these services (eslint keeps it so).
 */
import { keyEncryptionKey } from '../domain/key-sealing.js';
import { projectLinksOf } from '../domain/links.js';
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import type { ReadStamp } from '../store/per-turn.js';
import { ActivityService } from './activity/activity.js';
import { ObjectActivity } from './activity/object-activity.js';
import { type Clock, systemClock } from './clock.js';
import { CredentialService } from './accounts/credentials.js';
import { type OAuthServices, createOAuthServices } from './provider/provider.js';
import { RequestBudget } from './accounts/request-budget.js';
import { HealthService } from './health.js';
import { PrometheusMetrics } from './metrics.js';
import { EventHooks } from './activity/event-hooks.js';
import { ContentService } from './content/content.js';
import { FeedTokens } from './accounts/feed-tokens.js';
import { LiveActivity } from './live/live-activity.js';
import { WebhookService } from './webhooks/webhooks.js';
import { NavigationService } from './navigation/navigation.js';
import { RetentionService } from './retention.js';
import { CalendarSettings } from './accounts/calendar-settings.js';

export interface Services {
  config: Config;
  clock: Clock;
  credentials: CredentialService;
  activity: ActivityService;
  /** The events of one issue, merge request, milestone, commit or ref (the pages behind links). */
  objectActivity: ObjectActivity;
  /** Projects, members, issues, merge requests, milestones, notes: reads and writes with events. */
  content: ContentService;
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
  /** Per-user feed tokens for the Atom feeds (shown on the profile, resettable). */
  feedTokens: FeedTokens;
  /** New events as they are committed, per subscriber (GraphQL subscriptions, live pages). */
  live: LiveActivity;
  /** Project webhooks: the hooks API, the outbox (an in-transaction event hook), the worker. */
  webhooks: WebhookService;
  /** Users, projects, namespaces, groups, issues and merge requests as clients look for them. */
  navigation: NavigationService;
  /** A user's contribution calendar settings (time zone, private contributions). */
  calendarSettings: CalendarSettings;
  /** Event retention: what is older than `--retain-events`, pruned in batches. */
  retention: RetentionService;
  /**
   * A request's read context: the stamp taken as it comes in, and how work runs reading as of it,
   * so that on PostgreSQL all its reads are served by one reading sent after it arrived (store
   * `readStamp`), whatever service they go through.
   */
  reads: {
    stamp(): ReadStamp | undefined;
    asOf<R>(stamp: ReadStamp | undefined, work: () => R): R;
  };
}

export type { ReadStamp };

export function createServices(
  config: Config,
  store: Store,
  clock: Clock = systemClock,
  report: (error: unknown) => void = (error) => console.error(error),
): Services {
  const credentials = new CredentialService(store, clock);
  const metrics = new PrometheusMetrics(store);
  const activity = new ActivityService(store, clock, { pageCache: config.pageCache, metrics });
  const eventHooks = new EventHooks();
  const webhooks = new WebhookService(store, clock, {
    allowLocal: config.webhooksAllowLocal,
    // Read at each use: tests learn the external URL only once the port is known.
    links: () => projectLinksOf(config),
    kek:
      config.keyEncryptionKey === null
        ? null
        : keyEncryptionKey(config.keyEncryptionKey, 'webhook tokens'),
  });
  webhooks.attach(eventHooks);
  return {
    config,
    clock,
    credentials,
    content: new ContentService(store, clock, eventHooks, report),
    activity,
    objectActivity: new ObjectActivity(store, activity),
    requestBudget: new RequestBudget(() => store.requestCounters, clock),
    oauth: createOAuthServices(config, store, clock, credentials),
    health: new HealthService(store),
    metrics,
    eventHooks,
    feedTokens: new FeedTokens(store, clock),
    live: new LiveActivity(store, activity, eventHooks),
    webhooks,
    navigation: new NavigationService(store),
    calendarSettings: new CalendarSettings(store),
    retention: new RetentionService(
      store,
      clock,
      config.retainEvents,
      config.pruneBatchSize,
      metrics,
    ),
    reads: {
      stamp: () => store.readStamp(),
      asOf: (stamp, work) => store.readAsOf(stamp, work),
    },
  };
}
