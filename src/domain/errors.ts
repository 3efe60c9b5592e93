/**
 * Every error a service can raise, declared once with a code and a status. Faces translate them:
 * REST into GitLab's bodies, GraphQL into `extensions.code`, OAuth into RFC 6749 JSON.
 */

export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'INVALID_TOKEN'
  | 'INSUFFICIENT_SCOPE'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'INVALID_REQUEST'
  | 'RATE_LIMITED';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Invalid parameters. `messages` are Grape-style ("action does not have a valid value"); REST joins
 * them with ", " as Grape does, GraphQL reports them as one BAD_USER_INPUT error.
 */
export class ValidationError extends DomainError {
  constructor(readonly messages: string[]) {
    super('BAD_USER_INPUT', 400, messages.join(', '));
  }
}

/** A resource that does not exist or that the viewer may not read (never 403, as GitLab does). */
export class NotFoundError extends DomainError {
  constructor(readonly resource: 'User' | 'Project' | 'Event' | 'Note' | string) {
    super('NOT_FOUND', 404, `404 ${resource} Not Found`);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor() {
    super('UNAUTHENTICATED', 401, '401 Unauthorized');
  }
}

export const TOKEN_EXPIRED =
  'Token is expired. You can either do re-authorization or token refresh.';
export const TOKEN_REVOKED = 'Token was revoked. You have to re-authorize from the user.';

/** An expired or revoked token: RFC 6750 `invalid_token`. */
export class InvalidTokenError extends DomainError {
  constructor(readonly description: string) {
    super('INVALID_TOKEN', 401, description);
  }
}

export const INSUFFICIENT_SCOPE_DESCRIPTION =
  'The request requires higher privileges than provided by the access token.';

export class InsufficientScopeError extends DomainError {
  constructor(readonly allowedScopes: readonly string[]) {
    super('INSUFFICIENT_SCOPE', 403, INSUFFICIENT_SCOPE_DESCRIPTION);
  }
}

export class ForbiddenError extends DomainError {
  constructor(readonly reason?: string) {
    super('FORBIDDEN', 403, reason ? `403 Forbidden - ${reason}` : '403 Forbidden');
  }
}

/** A malformed request that is not a parameter-validation failure (e.g. two tokens at once). */
export class InvalidRequestError extends DomainError {
  constructor(readonly description: string) {
    super('INVALID_REQUEST', 400, description);
  }
}
