/**
 * The GraphQL face's error vocabulary, in one place for both engines: domain errors become
 * `extensions.code` (Apollo's vocabulary, GitLab-style messages); the database out of reach becomes
 * SERVICE_UNAVAILABLE; anything unexpected a generic INTERNAL_SERVER_ERROR without internals.
 */
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { type ServiceError, isServiceError } from '../domain/errors.js';
import { isTemporarilyUnavailable } from '../services/health.js';

/** A field that failed because the database is out of reach (services/health.ts). */
export const UNAVAILABLE_MESSAGE = 'Service temporarily unavailable: retry shortly';

/** Codes of the GraphQL face's own request limits and transport errors. */
export type FaceCode =
  | 'BAD_REQUEST'
  | 'GRAPHQL_PARSE_FAILED'
  | 'GRAPHQL_VALIDATION_FAILED'
  | 'OPERATION_RESOLUTION_FAILURE'
  | 'QUERY_TOO_LARGE'
  | 'QUERY_TOO_DEEP'
  | 'QUERY_TOO_COMPLEX'
  | 'PAGE_SIZE_EXCEEDED'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR';

export type GraphqlCode =
  FaceCode | 'BAD_USER_INPUT' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'CONFLICT';

/** A request the face refuses before execution, with its HTTP status. */
export class RequestError extends Error {
  constructor(
    readonly code: GraphqlCode,
    readonly status: number,
    message: string,
    readonly details: readonly GraphQLError[] = [],
  ) {
    super(message);
  }
}

/** An error a resolver throws for a face rule (page size, cursor) rather than a domain rule. */
export function faceError(code: GraphqlCode, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

export interface ErrorBody {
  errors: GraphQLFormattedError[];
}

/**
 * The one mapping of service errors to GraphQL: a message and an `extensions.code` (Apollo's
 * vocabulary); the messages of auth errors follow GitLab's GraphQL API.
 */
export function graphqlError(error: ServiceError): { message: string; code: GraphqlCode } {
  switch (error.code) {
    case 'BAD_USER_INPUT':
      return { message: error.message, code: 'BAD_USER_INPUT' };
    case 'UNAUTHENTICATED':
      return { message: error.message, code: 'UNAUTHENTICATED' };
    case 'INVALID_TOKEN':
      return { message: error.description, code: 'UNAUTHENTICATED' };
    case 'INSUFFICIENT_SCOPE':
      return {
        message: `${error.message} Accepted scopes: ${error.allowedScopes.join(', ')}.`,
        code: 'FORBIDDEN',
      };
    case 'FORBIDDEN':
      return { message: error.reason ?? error.message, code: 'FORBIDDEN' };
    case 'NOT_FOUND':
      return { message: error.message, code: 'NOT_FOUND' };
    case 'CONFLICT':
      return { message: error.message, code: 'CONFLICT' };
    case 'NOT_ALLOWED':
    case 'UNPROCESSABLE':
      return { message: error.message, code: 'BAD_REQUEST' };
    case 'INVALID_RECORD':
      return { message: error.message, code: 'BAD_USER_INPUT' };
    case 'INVALID_REQUEST':
    case 'OAUTH':
    case 'OAUTH_CLIENT':
    case 'OAUTH_FORBIDDEN':
      return { message: error.message, code: 'BAD_REQUEST' };
    case 'THROTTLED':
      return { message: error.message, code: 'RATE_LIMITED' };
  }
}

/** A service error raised before execution (authentication), with its HTTP status. */
export function requestErrorOf(error: ServiceError): RequestError {
  // Before execution this only means a token was presented and is unknown (GitLab's wording).
  if (error.code === 'UNAUTHENTICATED') {
    return new RequestError('UNAUTHENTICATED', 401, 'Invalid token');
  }
  const { message, code } = graphqlError(error);
  return new RequestError(code, error.status, message);
}

export function requestErrorBody(error: RequestError): ErrorBody {
  if (error.details.length > 0) {
    return {
      errors: error.details.map((d) => ({
        message: d.message,
        ...(d.locations ? { locations: d.locations } : {}),
        extensions: { code: error.code },
      })),
    };
  }
  return { errors: [{ message: error.message, extensions: { code: error.code } }] };
}

export type ErrorLogger = (error: unknown) => void;

/**
 * Formats one execution error. Domain errors and face errors keep their message and get a code;
 * errors the executor itself raised (e.g. a null in a non-null field) become generic internal
 * errors, and unknown exceptions are logged and hidden.
 */
export function formatExecutionError(error: GraphQLError, log: ErrorLogger): GraphQLFormattedError {
  const original = error.originalError;
  const where = {
    ...(error.locations ? { locations: error.locations } : {}),
    ...(error.path ? { path: error.path } : {}),
  };
  if (isServiceError(original)) {
    const { message, code } = graphqlError(original);
    return { message, ...where, extensions: { code } };
  }
  const source = original instanceof GraphQLError ? original : original ? null : error;
  if (source && typeof source.extensions?.code === 'string') {
    return { message: source.message, ...where, extensions: { code: source.extensions.code } };
  }
  if (isTemporarilyUnavailable(original)) {
    // A transient failure, not a defect: the field says so, and a client may retry.
    return { message: UNAVAILABLE_MESSAGE, ...where, extensions: { code: 'SERVICE_UNAVAILABLE' } };
  }
  log(original ?? error);
  return {
    message: 'Internal server error',
    ...where,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  };
}
