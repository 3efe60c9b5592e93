/**
 * The GraphQL face: `POST`/`GET /api/graphql` (GitLab's path) and `/graphql`, served by Mercurius
 * (default) or Apollo Server over one schema, behind one gate; the explorer at `/graphiql`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services/container.js';
import type { EventView, Mark } from '../services/activity/activity.js';
import type { IdempotentRequest } from '../services/content/content.js';
import { acceptBrowserSessions } from '../http/credentials.js';
import { registerCors } from '../http/cors.js';
import { errorHandler } from '../http/errors.js';
import { RATE_LIMIT_TEXT, limitRequests } from '../http/rate-limit.js';
import { type CacheKey, answerFromKept, sendComputed } from '../http/conditional.js';
import { readsAsOfArrival } from '../http/read-context.js';
import { createContext } from './context.js';
import { type Executor, JSON_UTF8 } from './engines/types.js';
import {
  type ErrorBody,
  RequestError,
  UNAVAILABLE_MESSAGE,
  graphqlError,
  requestErrorBody,
} from './errors.js';
import { explorerRoutes } from './explorer/routes.js';
import { Gate, type Prepared } from './gate.js';
import { liveSocket } from './live-socket.js';
import { graphqlSchema } from './schema.js';
import type { EventType } from './types/event.js';

export const GRAPHQL_PATHS = ['/api/graphql', '/graphql'] as const;

/**
 * A mutation sent with an `Idempotency-Key` header (the gate allows one mutation field then): the
 * key, and the request as a retry must repeat it (same path, operation and variables).
 */
function idempotentRequest(request: FastifyRequest, prepared: Prepared): IdempotentRequest | null {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string' || prepared.operation !== 'mutation') return null;
  return {
    key,
    request: `${request.method} ${request.url.split('?')[0]}`,
    body: JSON.stringify([
      prepared.source,
      prepared.operationName ?? null,
      prepared.variables ?? null,
    ]),
  };
}

function sendErrors(reply: FastifyReply, status: number, body: ErrorBody) {
  return reply.code(status).header('content-type', JSON_UTF8).send(JSON.stringify(body));
}

export function graphqlApi(services: Services, revision = '') {
  return async function graphql(app: FastifyInstance) {
    const { config } = services;
    const schema = await graphqlSchema();
    const gate = new Gate(schema, services);
    const eventModels = new WeakMap<EventView, EventType>();
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
            case 'unavailable':
              return sendErrors(reply, 503, {
                errors: [
                  { message: UNAVAILABLE_MESSAGE, extensions: { code: 'SERVICE_UNAVAILABLE' } },
                ],
              });
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
            // A query reads as of when the request came (sent by POST too); a mutation as of now,
            // so that it sees its own writes.
            if (prepared.operation !== 'query') return respond(request, reply, prepared);
            const ready = prepared;
            return readsAsOfArrival(services, request, () => respond(request, reply, ready));
          },
        });
      }

      /**
       * A query's answer is kept in the response cache (http/conditional.ts) under its document
       * (text, operation, variables), who asks (user, admin flag and token scopes: a missing scope
       * is a field error) and the Accept header (Apollo picks the content type by it), and stands
       * while the marks it read stand: the listing version (every other field reads tables whose
       * writes move it), each listing it paged through, the head after a read by id.
       */
      async function respond(request: FastifyRequest, reply: FastifyReply, prepared: Prepared) {
        const query = prepared.operation === 'query';
        const key = query ? cacheKey(prepared) : null;
        if (key && (await answerFromKept(request, reply, key))) return reply;
        // Read before anything is computed: a write meanwhile can only make them older.
        const marks: Mark[] | null = query ? [await services.activity.versionMark()] : null;
        const context = createContext(
          services,
          prepared.principal,
          request.log,
          eventModels,
          prepared.cost,
          {
            idempotent: idempotentRequest(request, prepared),
            replayed: () => reply.header('idempotent-replayed', 'true'),
          },
          marks,
        );
        const outcome = await execute(request, prepared, context);
        reply.code(outcome.status).header('content-type', outcome.contentType);
        // Errors may be passing (a timeout, a failed lookup): never tag or keep them.
        if (!key || !marks || outcome.failed || outcome.status !== 200) {
          return reply.send(outcome.body);
        }
        return sendComputed(request, reply, key, marks, Buffer.from(outcome.body));
      }

      function cacheKey(prepared: Prepared): CacheKey {
        const { principal } = prepared;
        return {
          kind: `graphql:${config.graphqlEngine}`,
          metric: 'graphql_result',
          revision,
          viewer: principal?.viewer ?? null,
          document: JSON.stringify([
            prepared.source,
            prepared.operationName ?? null,
            prepared.variables ?? null,
          ]),
          extra: [
            principal ? `${principal.kind}:${[...principal.scopes].sort().join(' ')}` : '-',
            prepared.accept ?? '',
          ],
        };
      }
    });

    // Subscriptions: WebSocket upgrades of the same paths (live-socket.ts).
    liveSocket(app, services, schema, GRAPHQL_PATHS);

    explorerRoutes(app, services);
  };
}
