/**
 * When each request arrived, as the store counts it (store/database.ts `Arrival`). On PostgreSQL
 * every step of a request that must see what was committed before the request came (its token,
 * its user, its listing's mark) is served by the first turn reading sent after it arrived, rather
 * than each step waiting for a reading of its own: a kept page then costs one round trip, not three.
 * SQLite reads those values in-process and takes no stamp.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../services/container.js';

/** A request's stamp, as the services take it. */
export type Arrival = ReturnType<Services['arrival']>;

const arrivals = new WeakMap<FastifyRequest, number>();

/** Stamps every request of `app` as it comes in, before any hook that reads the database. */
export function stampArrivals(app: FastifyInstance, services: Services): void {
  if (services.arrival() === undefined) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const arrival = services.arrival();
    if (arrival !== undefined) arrivals.set(request, arrival);
    done();
  });
}

/** The request's stamp; undefined (read as of now) for a request that has none. */
export function arrivalOf(request: FastifyRequest): Arrival {
  return arrivals.get(request);
}
