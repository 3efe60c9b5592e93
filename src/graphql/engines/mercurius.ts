/**
 * Mercurius on the REST server's own Fastify instance, with graphql-jit compiling each query after
 * its first run (`jit: 1`). Mercurius' routes are off: our routes run the shared gate first and then
 * call `app.graphql`, which keeps Mercurius' parse cache and JIT.
 */
import type { FastifyInstance } from 'fastify';
import type { GraphQLError, GraphQLSchema } from 'graphql';
import mercurius from 'mercurius';
import type { GraphQLContext } from '../context.js';
import { formatExecutionError } from '../errors.js';
import { type Executor, JSON_UTF8 } from './types.js';

export async function mercuriusEngine(
  app: FastifyInstance,
  schema: GraphQLSchema,
): Promise<Executor> {
  await app.register(mercurius, {
    schema,
    jit: 1,
    routes: false,
    graphiql: false,
    // Errors are formatted below with the mapping Apollo uses too.
    errorFormatter: (execution) => ({ statusCode: 200, response: execution }),
  });
  return async (_request, prepared, context) => {
    const result = await app.graphql(
      prepared.source,
      context as GraphQLContext & Record<string, unknown>,
      prepared.variables,
      prepared.operationName,
    );
    const log = (error: unknown) => context.log.error({ err: error }, 'GraphQL resolver failed');
    const errors = (result.errors as readonly GraphQLError[] | undefined)?.map((error) =>
      formatExecutionError(error, log),
    );
    const failed = errors !== undefined && errors.length > 0;
    const body = failed ? { errors, data: result.data ?? null } : { data: result.data };
    return { status: 200, contentType: JSON_UTF8, body: JSON.stringify(body), failed };
  };
}
