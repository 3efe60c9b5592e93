/**
 * The read context of a request. On PostgreSQL every step of a request that must see what was
 * committed before the request came (its token, its user, its listing's mark) is served by the
 * first turn reading sent after it arrived, rather than each step waiting for a reading of its own:
 * a kept page then costs one round trip, not three (store/per-turn.ts). The stamp is taken here,
 * first of all hooks, and carried to the store by the async context, never by a parameter.
 *
 * A safe request (GET, HEAD) reads as of its arrival throughout. Any other request reads as of now,
 * so that it sees its own writes, except where a face says its work only reads (`readsAsOfArrival`:
 * authentication, a GraphQL query sent by POST).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReadStamp, Services } from '../services/container.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The store's read stamp as the request came in (undefined on SQLite). */
    readStamp: ReadStamp | undefined;
  }
}

export function establishReadContext(app: FastifyInstance, services: Services): void {
  app.decorateRequest('readStamp', undefined);
  if (services.reads.stamp() === undefined) return;
  // A callback hook that runs the rest of the request inside the context it enters.
  app.addHook('onRequest', (request, _reply, done) => {
    request.readStamp = services.reads.stamp();
    if (request.method === 'GET' || request.method === 'HEAD') {
      services.reads.asOf(request.readStamp, done);
    } else {
      done();
    }
  });
  app.addHook('onResponse', (request, _reply, done) => {
    if (request.readStamp) request.readStamp.ended = true;
    done();
  });
}

/** Runs `work`, which only reads, as of the request's arrival. */
export function readsAsOfArrival<R>(services: Services, request: FastifyRequest, work: () => R): R {
  return services.reads.asOf(request.readStamp, work);
}
