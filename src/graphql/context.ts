/** What every resolver receives: the services, who is asking, and this request's loaders. */
import type { FastifyBaseLogger } from 'fastify';
import type { EndpointScopes } from '../domain/scopes.js';
import type { Viewer } from '../domain/visibility.js';
import type { Services } from '../services/container.js';
import type { Principal } from '../services/credentials.js';
import type { EventView, ResolvedProject } from '../services/activity.js';
import type { EventWindows } from '../services/event-windows.js';
import type { UserRow } from '../store/schema.js';
import { Loaders } from './loaders.js';
import { Presenter } from './present.js';
import type { EventType } from './types/event.js';

export interface GraphQLContext {
  services: Services;
  principal: Principal | null;
  viewer: Viewer | null;
  loaders: Loaders;
  windows: EventWindows;
  present: Presenter;
  log: FastifyBaseLogger;
  /**
   * Projects and users a root field already looked up for this viewer, by id: their `events`
   * field then builds its query without a second lookup.
   */
  resolved: { projects: Map<number, ResolvedProject>; users: Map<number, UserRow> };
  /** Checks the token's scopes for a field (no-op for anonymous callers), as REST does per route. */
  authorize(scopes: EndpointScopes): void;
}

export function createContext(
  services: Services,
  principal: Principal | null,
  log: FastifyBaseLogger,
  windows: EventWindows,
  eventModels?: WeakMap<EventView, EventType>,
): GraphQLContext {
  const loaders = new Loaders(services.store);
  return {
    services,
    principal,
    viewer: principal?.viewer ?? null,
    loaders,
    windows,
    present: new Presenter(services.config.externalUrl, eventModels),
    log,
    resolved: { projects: new Map(), users: new Map() },
    // GraphQL reads only: a safe method as far as read-only scopes are concerned.
    authorize: (scopes) => services.credentials.authorize(principal, scopes, true),
  };
}
