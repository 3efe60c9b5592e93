/**
 * The GraphQL face's error vocabulary, in one place for both engines: domain errors become
 * `extensions.code` (Apollo's vocabulary, GitLab-style messages); anything unexpected becomes a
 * generic INTERNAL_SERVER_ERROR without internals.
 */
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import {
  DomainError,
  ForbiddenError,
  InsufficientScopeError,
  InvalidTokenError,
  UnauthenticatedError,
  type ErrorCode,
} from '../domain/errors.js';

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
  | 'INTERNAL_SERVER_ERROR';

export type GraphqlCode =
  FaceCode | 'BAD_USER_INPUT' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'CONFLICT';

const DOMAIN_CODES: Record<ErrorCode, GraphqlCode> = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  INVALID_TOKEN: 'UNAUTHENTICATED',
  INSUFFICIENT_SCOPE: 'FORBIDDEN',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  INVALID_REQUEST: 'BAD_REQUEST',
  RATE_LIMITED: 'RATE_LIMITED',
};

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

/** Domain error → wire message and code; the message of auth errors follows GitLab's GraphQL. */
export function domainErrorJson(error: DomainError): { message: string; code: GraphqlCode } {
  const code = DOMAIN_CODES[error.code];
  if (error instanceof InvalidTokenError) return { message: error.description, code };
  if (error instanceof InsufficientScopeError) {
    return {
      message: `${error.message} Accepted scopes: ${error.allowedScopes.join(', ')}.`,
      code,
    };
  }
  if (error instanceof ForbiddenError && error.reason) return { message: error.reason, code };
  return { message: error.message, code };
}

/** HTTP status for a domain error raised before execution (authentication). */
export function requestErrorOf(error: DomainError): RequestError {
  const { message, code } = domainErrorJson(error);
  // Before execution this only means a token was presented and is unknown (GitLab's wording).
  if (error instanceof UnauthenticatedError) return new RequestError(code, 401, 'Invalid token');
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
  if (original instanceof DomainError) {
    const { message, code } = domainErrorJson(original);
    return { message, ...where, extensions: { code } };
  }
  const source = original instanceof GraphQLError ? original : original ? null : error;
  if (source && typeof source.extensions?.code === 'string') {
    return { message: source.message, ...where, extensions: { code: source.extensions.code } };
  }
  log(original ?? error);
  return {
    message: 'Internal server error',
    ...where,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  };
}
