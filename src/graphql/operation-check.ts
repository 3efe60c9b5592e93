/**
 * The one rule set a GraphQL operation passes before it executes, whichever transport brought it
 * (HTTP through the gate, WebSocket through live-socket): size, parse and validation (cached per
 * query text), the operation the request names, the operation types the transport serves, text
 * without NUL, variables, and the depth and complexity limits. A refusal is a `RequestError`; each
 * transport maps it to its own answer (an HTTP status and body, or a graphql-ws `error` message).
 */
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
import { ValidationError } from '../domain/errors.js';
import type { Principal } from '../services/accounts/credentials.js';
import { RequestError } from './errors.js';
import {
  MAX_COMPLEXITY,
  MAX_DEPTH,
  MAX_QUERY_LENGTH,
  queryComplexity,
  queryDepth,
} from './limits.js';

/** How the operation arrived: each serves its own operation types. */
export type Transport = 'GET' | 'POST' | 'WebSocket';

export interface OperationRequest {
  source: string;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  principal: Principal | null;
  transport: Transport;
  /** The request carries an Idempotency-Key (HTTP): it must cover exactly one mutation field. */
  idempotencyKey?: boolean;
}

export interface CheckedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The operation's cost, and the limit it was held to. */
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

/** Checked before anything else, authentication included: a huge text is not even read. */
export function refuseOversized(source: string): void {
  if (source.length > MAX_QUERY_LENGTH) {
    throw new RequestError('QUERY_TOO_LARGE', 400, 'Query too large');
  }
}

export class OperationCheck {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(private readonly schema: GraphQLSchema) {}

  /** The checked operation, or a `RequestError` for the first rule it breaks. */
  check(request: OperationRequest): CheckedOperation {
    const { source, operationName, variables, principal } = request;
    refuseOversized(source);
    const entry = this.entry(source);
    if (entry.errors) throw entry.errors;
    const document = entry.document!;
    const operation = pickOperation(document, operationName);
    refuseOperationType(request, operation);

    if (nullByteParams(variables).length > 0)
      throw new RequestError('BAD_USER_INPUT', 400, NULL_BYTE_MESSAGE);
    if (operation.variableDefinitions?.length) {
      const result = getVariableValues(
        this.schema,
        operation.variableDefinitions,
        variables ?? {},
        { maxErrors: MAX_VALIDATION_ERRORS },
      );
      if (result.errors) {
        throw new RequestError('BAD_USER_INPUT', 400, result.errors[0]!.message, result.errors);
      }
    }

    const key = operationName ?? '';
    const limits = principal === null ? 'anonymous' : 'authenticated';
    let depth = entry.depth.get(key);
    if (depth === undefined) {
      depth = queryDepth(document, operation);
      entry.depth.set(key, depth);
    }
    refuseAbove('QUERY_TOO_DEEP', 'depth', depth, MAX_DEPTH[limits]);

    const cacheable = !operation.variableDefinitions?.length;
    let complexity = cacheable ? entry.complexity.get(key) : undefined;
    if (complexity === undefined) {
      // graphql-query-complexity coerces the raw variables itself (checked just above).
      complexity = this.complexity(document, operationName, variables ?? {});
      if (cacheable) entry.complexity.set(key, complexity);
    }
    const limit = MAX_COMPLEXITY[limits];
    refuseAbove('QUERY_TOO_COMPLEX', 'complexity', complexity, limit);
    return { document, operation, cost: { score: complexity, limit } };
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

/**
 * Subscriptions live on the WebSocket and nothing else does (queries and mutations go over HTTP,
 * rate-limited there); GET only reads.
 */
function refuseOperationType(request: OperationRequest, operation: OperationDefinitionNode): void {
  const kind = operation.operation;
  if (request.transport === 'WebSocket') {
    if (kind !== 'subscription') {
      throw new RequestError(
        'BAD_REQUEST',
        400,
        'Only subscriptions are served over WebSocket; send queries and mutations over HTTP.',
      );
    }
    return;
  }
  if (kind === 'subscription') {
    throw new RequestError(
      'BAD_REQUEST',
      400,
      'Subscriptions are served over WebSocket (graphql-transport-ws) at /api/graphql.',
    );
  }
  if (request.transport === 'GET' && kind !== 'query') {
    throw new RequestError('BAD_REQUEST', 405, 'Only queries can be sent with GET.');
  }
  if (
    kind === 'mutation' &&
    request.idempotencyKey &&
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
