/**
 * The read context of a request: on PostgreSQL, what a request reads as of its arrival (token,
 * user, a listing's mark) is served by the first turn reading sent after it came, not a reading
 * each (store/per-turn.ts). Carried to the store by the async context, never by a parameter.
 * GET and HEAD read as of arrival throughout; other requests read as of now (they see their own
 * writes) except where a face says its work only reads (`readsAsOfArrival`). A WebSocket upgrade
 * reads as of now: its subscriptions live on for hours, and no response ends it.
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
    const upgrade = request.headers.upgrade !== undefined;
    if ((request.method === 'GET' || request.method === 'HEAD') && !upgrade) {
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
