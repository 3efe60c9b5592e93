/**
 * Apollo Server 5 on the same Fastify routes, selected with `--graphql-engine apollo`. Its
 * defaults that differ from Mercurius are turned off so both engines answer alike: no APQ, no CSRF
 * preflight requirement (GraphQL authenticates by token only, never by cookie), no landing page
 * (GraphiQL is served locally), no cache-control plugin, no stack traces. The request goes to
 * `executeHTTPGraphQLRequest` (what @as-integrations/fastify calls too) so that the face writes the
 * response and the shared result cache sees it.
 */
import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from '../context.js';
import type { Prepared } from '../gate.js';
import { formatExecutionError } from '../errors.js';
import { type Executor, JSON_UTF8 } from './types.js';

/**
 * Where the plugin below notes that a response carries errors. Apollo hands plugins a shallow copy
 * of the context (`Object.assign`), which keeps symbol-keyed properties: the box is shared.
 */
const OUTCOME = Symbol('outcome');
type ApolloContext = GraphQLContext & { [OUTCOME]: { failed: boolean } };

export async function apolloEngine(app: FastifyInstance, schema: GraphQLSchema): Promise<Executor> {
  const apollo = new ApolloServer<ApolloContext>({
    schema,
    introspection: true,
    csrfPrevention: false,
    persistedQueries: false,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    formatError: (_formatted, error) => {
      const graphqlError =
        error instanceof GraphQLError
          ? error
          : new GraphQLError('Internal server error', {
              originalError: error instanceof Error ? error : undefined,
            });
      return formatExecutionError(graphqlError, (err) =>
        app.log.error({ err }, 'GraphQL resolver failed'),
      );
    },
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      {
        requestDidStart: async () => ({
          willSendResponse: async ({ response, contextValue }) => {
            if (response.body.kind !== 'single' || response.body.singleResult.errors?.length)
              contextValue[OUTCOME].failed = true;
          },
        }),
      },
    ],
  });
  await apollo.start();
  // Fastify drains connections itself on close (Apollo's drain plugin would close it again).
  app.addHook('onClose', async () => {
    await apollo.stop();
  });
  return async (request, prepared, context) => {
    const outcome = { failed: false };
    const contextValue: ApolloContext = { ...context, [OUTCOME]: outcome };
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: {
        body: bodyOf(request, prepared),
        // HEAD is GET without a body (Fastify drops it); Apollo itself only knows GET and POST.
        method: request.method === 'HEAD' ? 'GET' : request.method.toUpperCase(),
        headers: headerMap(request),
        search: searchOf(request.url, prepared),
      },
      context: async () => contextValue,
    });
    // Incremental delivery (@defer/@stream) is not enabled, so every body is complete.
    if (response.body.kind !== 'complete') throw new Error('Apollo answered with a stream');
    return {
      status: response.status ?? 200,
      contentType: response.headers.get('content-type') ?? JSON_UTF8,
      body: response.body.string,
      failed: outcome.failed || (response.status ?? 200) !== 200,
    };
  };
}

function headerMap(request: FastifyRequest): HeaderMap {
  const map = new HeaderMap();
  for (const [key, value] of Object.entries(request.headers)) {
    if (value) map.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  return map;
}

/**
 * The gate reads an empty `operationName` as none at all (as Mercurius does); Apollo would look
 * for an operation named "" and fail internally, so it is not shown one.
 */
function bodyOf(request: FastifyRequest, prepared: Prepared): unknown {
  const body = request.body;
  if (prepared.operationName !== undefined || typeof body !== 'object' || body === null) {
    return body;
  }
  if (!('operationName' in body)) return body;
  const { operationName: _absent, ...rest } = body as Record<string, unknown>;
  return rest;
}

function searchOf(url: string, prepared: Prepared): string {
  const at = url.indexOf('?');
  if (at === -1) return '';
  const search = url.slice(at);
  if (prepared.operationName !== undefined) return search;
  const params = new URLSearchParams(search);
  if (!params.has('operationName')) return search;
  params.delete('operationName');
  return `?${params.toString()}`;
}
