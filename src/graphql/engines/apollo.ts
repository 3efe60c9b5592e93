/**
 * Apollo Server 5 through @as-integrations/fastify, selected with `--graphql-engine apollo`. Its
 * defaults that differ from Mercurius are turned off so both engines answer alike: no APQ, no CSRF
 * preflight requirement (GraphQL authenticates by token only, never by cookie), no landing page
 * (GraphiQL is served locally), no cache-control plugin, no stack traces.
 */
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from '../context.js';
import { formatExecutionError } from '../errors.js';
import type { Executor } from './types.js';

export async function apolloEngine(app: FastifyInstance, schema: GraphQLSchema): Promise<Executor> {
  const contexts = new WeakMap<FastifyRequest, GraphQLContext>();
  const apollo = new ApolloServer<GraphQLContext>({
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
    plugins: [ApolloServerPluginLandingPageDisabled(), ApolloServerPluginCacheControlDisabled()],
  });
  await apollo.start();
  // Fastify drains connections itself on close (Apollo's drain plugin would close it again).
  app.addHook('onClose', async () => {
    await apollo.stop();
  });
  const handler = fastifyApolloHandler(apollo, {
    context: async (request) => contexts.get(request)!,
  });
  return async (request, reply, _prepared, context) => {
    contexts.set(request, context);
    // The integration types its own route generic; the request is the same object.
    return handler.call(app, request as never, reply as never);
  };
}
