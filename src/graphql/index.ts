/**
 * The GraphQL face: `POST`/`GET /api/graphql` (GitLab's path) and `/graphql`, served by Mercurius
 * (default) or Apollo Server over one schema, behind one gate; the explorer at `/graphiql`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services/container.js';
import type { EventReads, EventView } from '../services/activity/activity.js';
import type { IdempotentRequest } from '../services/content/content.js';
import { acceptBrowserSessions } from '../http/credentials.js';
import { registerCors } from '../http/cors.js';
import { errorHandler } from '../http/errors.js';
import { RATE_LIMIT_TEXT, limitRequests } from '../http/rate-limit.js';
import { answerIfNotModified, tagResponses, untagged } from '../http/conditional.js';
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
import { ResultCache } from './result-cache.js';
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
    const results = new ResultCache(config.pageCache);
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
      // GET queries answer If-None-Match like the REST lists (http/conditional.ts).
      tagResponses(api, services);
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

      async function respond(request: FastifyRequest, reply: FastifyReply, prepared: Prepared) {
        const key = results.admit(prepared);
        const tagged = request.method === 'GET' && prepared.operation === 'query';
        // One reading of the marks, before anything is computed: the tag's, and those a kept
        // answer is checked against and an answer computed now is kept under.
        const marks = tagged || key !== null ? await services.activity.versionMarks() : null;
        // A GET query is a function of its URL (query, variables, operation name), who asks
        // (user and scopes: a missing scope is a field error), the Accept header (Apollo
        // picks the content type by it) and the data: the head mark covers the data, since
        // every GraphQL field reads events or tables whose writes move the listing version.
        if (tagged && marks) {
          const { principal } = prepared;
          const list = {
            kind: `graphql:${config.graphqlEngine}`,
            revision,
            viewer: principal?.viewer ?? null,
            mark: marks.head,
            extra: [
              principal ? `${principal.kind}:${[...principal.scopes].sort().join(' ')}` : '-',
              request.headers.accept ?? '',
            ],
          };
          if (await answerIfNotModified(services, request, reply, list)) return reply;
        }
        const caching =
          key === null || !marks
            ? null
            : { key, before: marks, reads: { listings: [], byId: false } as EventReads };
        if (caching) {
          const hit = await results.get(caching.key, caching.before);
          services.metrics.cacheLookup('graphql_result', hit !== undefined);
          if (hit) return reply.code(200).header('content-type', hit.contentType).send(hit.body);
        }
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
          caching?.reads ?? null,
        );
        const outcome = await execute(request, prepared, context);
        // Errors may be passing (a timeout, a failed lookup): never tag them for reuse.
        if (outcome.failed) untagged(request);
        reply.code(outcome.status).header('content-type', outcome.contentType);
        if (!caching || outcome.failed || outcome.status !== 200) return reply.send(outcome.body);
        const cached = { contentType: outcome.contentType, body: Buffer.from(outcome.body) };
        results.set(caching.key, cached, caching.before, caching.reads);
        return reply.send(cached.body);
      }
    });

    // Subscriptions: WebSocket upgrades of the same paths (live-socket.ts).
    liveSocket(app, services, schema, GRAPHQL_PATHS);

    explorerRoutes(app, services);
  };
}
