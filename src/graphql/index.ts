/**
 * The GraphQL face: `POST`/`GET /api/graphql` (GitLab's path) and `/graphql`, served by Mercurius
 * (default) or Apollo Server over one schema, behind one gate; the explorer at `/graphiql`.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Services } from '../services/container.js';
import type { EventView } from '../services/activity/activity.js';
import { acceptBrowserSessions } from '../http/credentials.js';
import { registerCors } from '../http/cors.js';
import { errorHandler } from '../http/errors.js';
import { RATE_LIMIT_TEXT, limitRequests } from '../http/rate-limit.js';
import { createContext } from './context.js';
import { type Executor, JSON_UTF8 } from './engines/types.js';
import { type ErrorBody, RequestError, graphqlError, requestErrorBody } from './errors.js';
import { explorerRoutes } from './explorer/routes.js';
import { Gate } from './gate.js';
import { ResultCache } from './result-cache.js';
import { liveSocket } from './live-socket.js';
import { graphqlSchema } from './schema.js';
import type { EventType } from './types/event.js';

export const GRAPHQL_PATHS = ['/api/graphql', '/graphql'] as const;

function sendErrors(reply: FastifyReply, status: number, body: ErrorBody) {
  return reply.code(status).header('content-type', JSON_UTF8).send(JSON.stringify(body));
}

export function graphqlApi(services: Services) {
  return async function graphql(app: FastifyInstance) {
    const { config } = services;
    const schema = await graphqlSchema();
    const gate = new Gate(schema, services);
    const eventModels = new WeakMap<EventView, EventType>();
    const results = new ResultCache(() => services.activity.dataVersion(), config.pageCache);
    const execute: Executor =
      config.graphqlEngine === 'apollo'
        ? // Engines load on demand: only the selected one's code is in memory.
          await (await import('./engines/apollo.js')).apolloEngine(app, schema)
        : await (await import('./engines/mercurius.js')).mercuriusEngine(app, schema);

    await app.register(async (api) => {
      // GraphiQL's fetcher: the signed-in session with its CSRF header (http/credentials.ts).
      acceptBrowserSessions(api);
      // GraphQL's own paths only: this scope's preflight route would otherwise answer anywhere.
      const paths = new Set<string>(GRAPHQL_PATHS);
      await registerCors(api, config.corsOrigins, ['GET', 'HEAD', 'POST'], (request) =>
        paths.has(request.url.split('?')[0]!),
      );
      limitRequests(api, services, (max) => ({ message: RATE_LIMIT_TEXT(max) }));
      api.setErrorHandler(
        errorHandler('graphql', (problem, reply) => {
          switch (problem.kind) {
            case 'service': {
              const { message, code } = graphqlError(problem.error);
              return sendErrors(reply, problem.status, {
                errors: [{ message, extensions: { code } }],
              });
            }
            case 'client': {
              const code = problem.reason === 'rate_limited' ? 'RATE_LIMITED' : 'BAD_REQUEST';
              return sendErrors(reply, problem.status, {
                errors: [{ message: problem.message, extensions: { code } }],
              });
            }
            case 'internal':
              return sendErrors(reply, 500, {
                errors: [
                  {
                    message: 'Internal server error',
                    extensions: { code: 'INTERNAL_SERVER_ERROR' },
                  },
                ],
              });
          }
        }),
      );
      for (const url of GRAPHQL_PATHS) {
        api.route({
          method: ['GET', 'POST'],
          url,
          handler: async (request, reply) => {
            let prepared;
            try {
              prepared = await gate.prepare(request, reply);
            } catch (error) {
              if (!(error instanceof RequestError)) throw error;
              return sendErrors(reply, error.status, requestErrorBody(error));
            }
            const ticket = results.admit(prepared);
            const hit = ticket && results.get(ticket);
            if (ticket) services.metrics.cacheLookup('graphql_result', hit !== undefined);
            if (hit) return reply.code(200).header('content-type', hit.contentType).send(hit.body);
            const context = createContext(
              services,
              prepared.principal,
              request.log,
              eventModels,
              prepared.cost,
            );
            const outcome = await execute(request, prepared, context);
            reply.code(outcome.status).header('content-type', outcome.contentType);
            if (!ticket || outcome.failed || outcome.status !== 200)
              return reply.send(outcome.body);
            const cached = { contentType: outcome.contentType, body: Buffer.from(outcome.body) };
            results.set(ticket, cached);
            return reply.send(cached.body);
          },
        });
      }
    });

    // Subscriptions: WebSocket upgrades of the same paths (live-socket.ts).
    liveSocket(app, services, schema, GRAPHQL_PATHS);

    explorerRoutes(app, services);
  };
}
