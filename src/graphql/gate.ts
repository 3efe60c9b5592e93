/**
 * Everything that happens to a GraphQL request over HTTP before an engine executes it, shared by
 * both engines so they answer bad requests identically: read the operation (GET or POST), enforce
 * the query size, authenticate, then the one operation check (operation-check.ts) the WebSocket
 * transport runs as well.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { isServiceError } from '../domain/errors.js';
import { markCredentialInUrl, presentedCredentials, principalOf } from '../http/credentials.js';
import type { Services } from '../services/container.js';
import type { Principal } from '../services/accounts/credentials.js';
import { RequestError, requestErrorOf } from './errors.js';
import { OperationCheck, refuseOversized } from './operation-check.js';

export interface Prepared {
  source: string;
  document: DocumentNode;
  operationName: string | undefined;
  /** The kind of the operation that runs (the result cache keeps queries only). */
  operation: OperationDefinitionNode['operation'];
  variables: Record<string, unknown> | undefined;
  principal: Principal | null;
  /** The request's Accept header: Apollo picks the response content type from it. */
  accept: string | undefined;
  /** The operation's cost as the gate computed it, and the limit it was held to. */
  cost: { score: number; limit: number };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Gate {
  private readonly operations: OperationCheck;

  constructor(
    schema: GraphQLSchema,
    private readonly services: Services,
  ) {
    this.operations = new OperationCheck(schema);
  }

  async prepare(request: FastifyRequest, reply: FastifyReply): Promise<Prepared> {
    const { source, variables, operationName } = readOperation(request);
    const presented = presentedCredentials(request);
    if (presented.accessTokenParam !== undefined || presented.privateTokenParam !== undefined) {
      markCredentialInUrl(reply);
    }
    let principal: Principal | null;
    try {
      principal = await principalOf(this.services, request);
    } catch (error) {
      if (isServiceError(error)) throw requestErrorOf(error);
      throw error;
    }
    const { document, operation, cost } = this.operations.check({
      source,
      operationName,
      variables,
      principal,
      transport: request.method === 'POST' ? 'POST' : 'GET',
      idempotencyKey: request.headers['idempotency-key'] !== undefined,
    });
    const accept = request.headers.accept;
    return {
      source,
      document,
      operationName,
      operation: operation.operation,
      variables,
      principal,
      accept: typeof accept === 'string' ? accept : undefined,
      cost,
    };
  }
}

/** `application/json` with any parameters (`; charset=utf-8`). */
function isJson(header: string | undefined): boolean {
  return header?.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** `{query, variables, operationName}` from a POST body or a GET query string. */
function readOperation(request: FastifyRequest): {
  source: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
} {
  // HEAD is GET without a response body.
  const get = request.method === 'GET' || request.method === 'HEAD';
  if (!get && !isJson(request.headers['content-type'])) {
    throw new RequestError(
      'BAD_REQUEST',
      415,
      'Unsupported Content-Type: send the operation as application/json (or use GET).',
    );
  }
  const params = get ? request.query : request.body;
  if (Array.isArray(params)) {
    throw new RequestError('BAD_REQUEST', 400, 'Batched queries are not supported.');
  }
  if (!isObject(params) || typeof params.query !== 'string' || params.query.trim() === '') {
    throw new RequestError('BAD_REQUEST', 400, 'Must provide query string.');
  }
  refuseOversized(params.query);
  let variables: unknown = params.variables;
  if (typeof variables === 'string') {
    if (variables.trim() === '') variables = undefined;
    else {
      try {
        variables = JSON.parse(variables);
      } catch {
        throw new RequestError('BAD_REQUEST', 400, 'Variables are not valid JSON.');
      }
    }
  }
  if (variables !== undefined && variables !== null && !isObject(variables)) {
    throw new RequestError('BAD_REQUEST', 400, 'Variables must be an object.');
  }
  // Both engines then read the same decoded variables (Apollo refuses a string in a POST body).
  if (!get) {
    if (variables === undefined || variables === null) delete params.variables;
    else params.variables = variables;
  }
  const name = params.operationName;
  if (name !== undefined && name !== null && typeof name !== 'string') {
    throw new RequestError('BAD_REQUEST', 400, 'operationName must be a string.');
  }
  return {
    source: params.query,
    variables: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: name === null || name === '' ? undefined : name,
  };
}
