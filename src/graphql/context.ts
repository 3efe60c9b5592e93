/** What every resolver receives: who is asking, this request's activity reader and presenter. */
import type { FastifyBaseLogger } from 'fastify';
import type { EndpointScopes } from '../domain/scopes.js';
import type { Viewer } from '../domain/visibility.js';
import type { ActivityReader, EventView } from '../services/activity/activity.js';
import type { Services } from '../services/container.js';
import type { LiveActivity } from '../services/live/live-activity.js';
import type { Principal } from '../services/accounts/credentials.js';
import { Presenter } from './present.js';
import type { EventType } from './types/event.js';

export interface GraphQLContext {
  principal: Principal | null;
  viewer: Viewer | null;
  /** Batched lookups and resolved sources for this request (owned by the activity service). */
  reader: ActivityReader;
  present: Presenter;
  log: FastifyBaseLogger;
  /** What this operation costs and may cost (`Query.queryComplexity`). */
  cost: { score: number; limit: number };
  /** New events as they are committed (subscriptions). */
  live: LiveActivity;
  /**
   * Starts over with a fresh reader and presenter: a subscription's context lives as long as the
   * subscription, and each event it delivers must be read as things are now, not as cached.
   */
  renew(): void;
  /** Checks the token's scopes for a field (no-op for anonymous callers), as REST does per route. */
  authorize(scopes: EndpointScopes): void;
}

export function createContext(
  services: Services,
  principal: Principal | null,
  log: FastifyBaseLogger,
  eventModels?: WeakMap<EventView, EventType>,
  cost: { score: number; limit: number } = { score: 0, limit: 0 },
): GraphQLContext {
  const viewer = principal?.viewer ?? null;
  const context: GraphQLContext = {
    principal,
    viewer,
    reader: services.activity.reader(viewer, principal?.user ?? null),
    present: new Presenter(services.config.externalUrl, eventModels),
    log,
    cost,
    live: services.live,
    // GraphQL reads only: a safe method as far as read-only scopes are concerned.
    authorize: (scopes) => services.credentials.authorize(principal, scopes, true),
    renew() {
      context.reader = services.activity.reader(viewer, principal?.user ?? null);
      context.present = new Presenter(services.config.externalUrl);
    },
  };
  return context;
}
