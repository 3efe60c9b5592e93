/**
 * Before a server listens, it sends itself a few anonymous reads of public projects' listings, REST
 * and GraphQL, through the whole stack (routing, validation, the listing, hydration, presenting).
 * Right after a start every request also pays for compiling the code it runs: on 1,000,000 events
 * the first listings after boot took 7–13 ms against 2.5–5 ms on a running server (`bench:live`,
 * "first requests after boot"). Users meeting a server just restarted or deployed should not pay
 * that; a few hundred milliseconds of start-up do instead.
 *
 * The requests come from an address no network client can have (a socket's remote address is
 * always an IP), so the request metrics leave them out; they spend only that address's rate-limit
 * budget, and they write nothing.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../services/container.js';

const WARM_UP_ADDRESS = 'pulsegate-warm-up';

/** Public projects whose listings are read, and how many times each request is sent. */
const PROJECTS = 3;
const ROUNDS = 3;

const GRAPHQL_QUERY = `query WarmUp($id: ID!) {
  project(idOrPath: $id) {
    events(first: 20) { nodes { id actionName createdAt author { username } target { __typename } } }
  }
}`;

/** True for the server's own warm-up requests. */
export function isWarmUp(request: FastifyRequest): boolean {
  return request.raw.socket?.remoteAddress === WARM_UP_ADDRESS;
}

/**
 * Sends the warm-up requests; returns how many were answered 200. Stops early, quietly, once
 * `stopping` says the server is being stopped (a signal during start-up).
 */
export async function warmUp(
  app: FastifyInstance,
  services: Services,
  stopping: () => boolean = () => false,
): Promise<number> {
  const ids = await services.activity.publicProjectIds(PROJECTS);
  const requests = ids.flatMap((id) => [
    ...['', '?page=2', '?page=5&per_page=20', '?action=pushed', '?target_type=issue&sort=asc'].map(
      (query) => ({ method: 'GET' as const, url: `/api/v4/projects/${id}/events${query}` }),
    ),
    {
      method: 'POST' as const,
      url: '/api/graphql',
      payload: { query: GRAPHQL_QUERY, variables: { id: String(id) } },
    },
  ]);
  let answered = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const request of requests) {
      if (stopping()) return answered;
      try {
        const response = await app.inject({ ...request, remoteAddress: WARM_UP_ADDRESS });
        if (response.statusCode === 200) answered++;
      } catch (error) {
        // Closed under it by a stop: nothing left to warm.
        if (stopping()) return answered;
        throw error;
      }
    }
  }
  return answered;
}
