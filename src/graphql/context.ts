/** What every resolver receives: who is asking, this request's activity reader and presenter. */
import type { FastifyBaseLogger } from 'fastify';
import { UnauthenticatedError } from '../domain/errors.js';
import { projectLinksOf } from '../domain/links.js';
import type { EndpointScopes, Scope } from '../domain/scopes.js';
import type { Viewer } from '../domain/visibility.js';
import type { ActivityReader, EventReads, EventView } from '../services/activity/activity.js';
import type { Services } from '../services/container.js';
import type { LiveActivity } from '../services/live/live-activity.js';
import type { Principal } from '../services/accounts/credentials.js';
import type { IdempotentRequest } from '../services/content/content.js';
import type { ContentOps } from '../services/content/ops.js';
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
  /**
   * Refuses callers who may not write at all: anonymous ones (UNAUTHENTICATED), and tokens
   * without scope `api` (read scopes only read).
   */
  authorizeWrite(): Principal;
  /**
   * Runs a mutation's change in one transaction as the token's owner (ContentService.write),
   * after `authorizeWrite`. Nothing else may query while it runs (SQLite has one connection):
   * look things up before. With an `Idempotency-Key` the result is kept with the write and a
   * retry gets it back (parsed from JSON: results must be plain models) without writing again.
   */
  write<T>(work: (ops: ContentOps) => Promise<T>): Promise<T>;
}

/** What a request adds for writes: its `Idempotency-Key`, and how to mark a replayed answer. */
export interface WriteRequest {
  idempotent: IdempotentRequest | null;
  replayed(): void;
}

/** What a mutation accepts: REST writes take `api` alone too (`read_api` only on safe methods). */
const WRITE_SCOPES: readonly Scope[] = ['api'];

export function createContext(
  services: Services,
  principal: Principal | null,
  log: FastifyBaseLogger,
  eventModels?: WeakMap<EventView, EventType>,
  cost: { score: number; limit: number } = { score: 0, limit: 0 },
  writeRequest: WriteRequest = { idempotent: null, replayed: () => undefined },
  reads: EventReads | null = null,
): GraphQLContext {
  const viewer = principal?.viewer ?? null;
  const authorizeWrite = (): Principal => {
    if (!principal) throw new UnauthenticatedError();
    services.credentials.authorize(principal, WRITE_SCOPES, false);
    return principal;
  };
  const context: GraphQLContext = {
    principal,
    viewer,
    reader: services.activity.reader(viewer, principal?.user ?? null, reads),
    present: new Presenter(projectLinksOf(services.config), eventModels),
    log,
    cost,
    live: services.live,
    // GraphQL reads only: a safe method as far as read-only scopes are concerned.
    authorize: (scopes) => services.credentials.authorize(principal, scopes, true),
    authorizeWrite,
    write: async <T>(work: (ops: ContentOps) => Promise<T>): Promise<T> => {
      const writer = authorizeWrite();
      const actor = { user: writer.user, viewer: writer.viewer };
      const { idempotent } = writeRequest;
      if (!idempotent) return services.content.write(actor, work);
      const answer = await services.content.writeOnce(actor, idempotent, async (ops) => ({
        status: 200,
        body: await work(ops),
      }));
      if (answer.replayed) writeRequest.replayed();
      return answer.body as T;
    },
    renew() {
      context.reader = services.activity.reader(viewer, principal?.user ?? null);
      context.present = new Presenter(projectLinksOf(services.config));
    },
  };
  return context;
}
