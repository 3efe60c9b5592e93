/**
 * Everything that happens to a GraphQL request before an engine executes it, shared by both
 * engines so they answer bad requests identically: read the operation (GET or POST), enforce the
 * query size, authenticate, parse and validate (cached per query text), pick the operation,
 * coerce variables, and enforce depth, page-size and complexity limits.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type ASTVisitor,
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type ValidationContext,
  getOperationAST,
  getVariableValues,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import { nullByteParams } from '../domain/content-rules.js';
import { ValidationError, isServiceError } from '../domain/errors.js';
import { markCredentialInUrl, presentedCredentials, principalOf } from '../http/credentials.js';
import type { Services } from '../services/container.js';
import type { Principal } from '../services/accounts/credentials.js';
import { RequestError, requestErrorOf } from './errors.js';
import {
  MAX_COMPLEXITY,
  MAX_DEPTH,
  MAX_QUERY_LENGTH,
  queryComplexity,
  queryDepth,
} from './limits.js';

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

interface CacheEntry {
  document?: DocumentNode;
  errors?: RequestError;
  /** Complexity by operation name, for requests without variables. */
  complexity: Map<string, number>;
  depth: Map<string, number>;
}

const CACHE_SIZE = 1_000;
const MAX_VALIDATION_ERRORS = 5;

/**
 * Every operation's root type must exist in the schema (graphql-js 16 only finds out while
 * executing, as an internal error): a `mutation` or `subscription` is a validation error until the
 * schema defines that root, and works as soon as it does.
 */
function knownOperationTypes(context: ValidationContext): ASTVisitor {
  const schema = context.getSchema();
  return {
    OperationDefinition(node) {
      if (!schema.getRootType(node.operation)) {
        context.reportError(
          new GraphQLError(`Schema is not configured to execute ${node.operation} operation.`, {
            nodes: node,
          }),
        );
      }
    },
  };
}

/**
 * Text with a NUL character: PostgreSQL cannot store it (the write would fail as an internal
 * error), so it is refused up front as GitLab's HandleNullBytes middleware refuses it (400).
 */
export const NULL_BYTE_MESSAGE = 'Strings must not contain null bytes (\\u0000).';

function noNullBytes(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node) {
      if (node.value.includes('\0')) {
        context.reportError(new GraphQLError(NULL_BYTE_MESSAGE, { nodes: node }));
      }
    },
  };
}

const RULES = [...specifiedRules, knownOperationTypes, noNullBytes];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Gate {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly services: Services,
  ) {}

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
    const entry = this.entry(source);
    if (entry.errors) throw entry.errors;
    const document = entry.document!;
    const operation = pickOperation(document, operationName);
    if (operation.operation === 'subscription') {
      throw new RequestError(
        'BAD_REQUEST',
        400,
        'Subscriptions are served over WebSocket (graphql-transport-ws) at /api/graphql.',
      );
    }
    if (request.method !== 'POST' && operation.operation !== 'query') {
      throw new RequestError('BAD_REQUEST', 405, 'Only queries can be sent with GET.');
    }
    if (
      operation.operation === 'mutation' &&
      request.headers['idempotency-key'] !== undefined &&
      !(
        operation.selectionSet.selections.length === 1 &&
        operation.selectionSet.selections[0]!.kind === Kind.FIELD
      )
    ) {
      // One stored answer per key: a key covers exactly one mutation field.
      throw new RequestError(
        'BAD_REQUEST',
        400,
        'An Idempotency-Key covers one mutation: send exactly one mutation field.',
      );
    }

    if (nullByteParams(variables).length > 0)
      throw new RequestError('BAD_USER_INPUT', 400, NULL_BYTE_MESSAGE);
    if (operation.variableDefinitions?.length) {
      const result = getVariableValues(
        this.schema,
        operation.variableDefinitions,
        variables ?? {},
        {
          maxErrors: MAX_VALIDATION_ERRORS,
        },
      );
      if (result.errors) {
        throw new RequestError('BAD_USER_INPUT', 400, result.errors[0]!.message, result.errors);
      }
    }

    const key = operationName ?? '';
    const anonymous = principal === null;
    let depth = entry.depth.get(key);
    if (depth === undefined) {
      depth = queryDepth(document, operation);
      entry.depth.set(key, depth);
    }
    refuseAbove(
      'QUERY_TOO_DEEP',
      'depth',
      depth,
      MAX_DEPTH[anonymous ? 'anonymous' : 'authenticated'],
    );

    const cacheable = !operation.variableDefinitions?.length;
    let complexity = cacheable ? entry.complexity.get(key) : undefined;
    if (complexity === undefined) {
      // graphql-query-complexity coerces the raw variables itself (checked just above).
      complexity = this.complexity(document, operationName, variables ?? {});
      if (cacheable) entry.complexity.set(key, complexity);
    }
    const maxComplexity = MAX_COMPLEXITY[anonymous ? 'anonymous' : 'authenticated'];
    refuseAbove('QUERY_TOO_COMPLEX', 'complexity', complexity, maxComplexity);
    const accept = request.headers.accept;
    return {
      source,
      document,
      operationName,
      operation: operation.operation,
      variables,
      principal,
      accept: typeof accept === 'string' ? accept : undefined,
      cost: { score: complexity, limit: maxComplexity },
    };
  }

  private complexity(
    document: DocumentNode,
    operationName: string | undefined,
    variables: Record<string, unknown>,
  ): number {
    try {
      return queryComplexity(this.schema, document, operationName, variables);
    } catch (error) {
      if (error instanceof ValidationError) {
        throw new RequestError('BAD_USER_INPUT', 400, error.message);
      }
      if (error instanceof GraphQLError) {
        throw new RequestError('BAD_USER_INPUT', 400, error.message, [error]);
      }
      throw error;
    }
  }

  /** Parse and validate once per distinct query text; failures are remembered as well. */
  private entry(source: string): CacheEntry {
    let entry = this.cache.get(source);
    if (entry) return entry;
    entry = { complexity: new Map(), depth: new Map() };
    try {
      const document = parse(source, { maxTokens: 5_000 });
      const errors = validate(this.schema, document, RULES, {
        maxErrors: MAX_VALIDATION_ERRORS,
      });
      if (errors.length > 0) {
        entry.errors = new RequestError(
          'GRAPHQL_VALIDATION_FAILED',
          400,
          errors[0]!.message,
          errors,
        );
      } else {
        entry.document = document;
      }
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      entry.errors = new RequestError('GRAPHQL_PARSE_FAILED', 400, error.message, [error]);
    }
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(source, entry);
    return entry;
  }
}

function pickOperation(
  document: DocumentNode,
  operationName: string | undefined,
): OperationDefinitionNode {
  const operation = getOperationAST(document, operationName);
  if (operation) return operation;
  throw new RequestError(
    'OPERATION_RESOLUTION_FAILURE',
    400,
    operationName === undefined
      ? 'Must provide operation name if query contains multiple operations.'
      : `Unknown operation named "${operationName}".`,
  );
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
  if (params.query.length > MAX_QUERY_LENGTH) {
    throw new RequestError('QUERY_TOO_LARGE', 400, 'Query too large');
  }
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

/** A measured cost over its limit: 400 with the limit named, as GitLab words it. */
function refuseAbove(
  code: 'QUERY_TOO_DEEP' | 'QUERY_TOO_COMPLEX',
  measure: 'depth' | 'complexity',
  value: number,
  limit: number,
): void {
  if (value > limit) {
    throw new RequestError(
      code,
      400,
      `Query has ${measure} of ${value}, which exceeds max ${measure} of ${limit}`,
    );
  }
}
