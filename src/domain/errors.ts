/**
 * Every error a service can raise, declared once: a code, its HTTP status and its default text
 * (ERRORS). Faces never decide a status again; each maps a code to its own wire shape in one
 * function (REST: GitLab JSON, GraphQL: `extensions.code`, OAuth: RFC 6749 JSON, web: an HTML
 * page), switching on `code`, which narrows a `ServiceError` to the class carrying its details.
 * `payload` marks a problem with the input or the object's state, which a GraphQL mutation answers
 * as a value in its `errors` list (GitLab's `errors: [String!]!`) rather than as a GraphQL error.
 */

export const ERRORS = {
  /** Invalid parameters (Grape's "x is invalid, y is missing"). */
  BAD_USER_INPUT: { status: 400, text: '400 Bad request' },
  /** A malformed request that is not a parameter-validation failure (e.g. two tokens at once). */
  INVALID_REQUEST: { status: 400, text: 'The request is malformed.' },
  /** An RFC 6749 protocol error (token, revocation, introspection, authorization endpoints). */
  OAUTH: { status: 400, text: 'The request is not a valid OAuth request.' },
  /** Client authentication failed (RFC 6749 §5.2: 401). */
  OAUTH_CLIENT: { status: 401, text: 'Client authentication failed.' },
  /** The client may not act on this object (another client's token): 403, as Doorkeeper. */
  OAUTH_FORBIDDEN: { status: 403, text: 'The client is not authorized to perform this request.' },
  UNAUTHENTICATED: { status: 401, text: '401 Unauthorized' },
  /** An expired or revoked token: RFC 6750 `invalid_token`. */
  INVALID_TOKEN: { status: 401, text: 'The access token is invalid.' },
  INSUFFICIENT_SCOPE: {
    status: 403,
    text: 'The request requires higher privileges than provided by the access token.',
  },
  FORBIDDEN: { status: 403, text: '403 Forbidden' },
  /** Missing, or not visible to the viewer (never 403, as GitLab does). */
  NOT_FOUND: { status: 404, text: '404 Not Found' },
  /** The request is valid but the object's state forbids it (merging a closed merge request). */
  NOT_ALLOWED: { status: 405, text: '405 Method Not Allowed', payload: true },
  CONFLICT: { status: 409, text: '409 Conflict', payload: true },
  /** A model failed validation: messages per attribute (`{"title":["can't be blank"]}`). */
  INVALID_RECORD: { status: 400, text: '400 Bad request', payload: true },
  /** Understood but not processable (an `Idempotency-Key` reused for another request). */
  UNPROCESSABLE: { status: 422, text: '422 Unprocessable Entity', payload: true },
  /** Too many failed attempts for an account, an address or a client. */
  THROTTLED: { status: 429, text: 'Too many failed attempts.' },
} as const satisfies Record<string, { status: number; text: string; payload?: true }>;

export type ErrorCode = keyof typeof ERRORS;

/** Whether a mutation answers this error in its payload's `errors` (see ERRORS). */
export function inMutationPayload(code: ErrorCode): boolean {
  return 'payload' in ERRORS[code];
}

export class DomainError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;

  constructor(
    readonly code: C,
    message: string = ERRORS[code].text,
  ) {
    super(message);
    this.status = ERRORS[code].status;
    this.name = new.target.name;
  }
}

/**
 * Invalid parameters. `messages` are Grape-style ("action does not have a valid value"); REST joins
 * them with ", " as Grape does, GraphQL reports them as one BAD_USER_INPUT error.
 */
export class ValidationError extends DomainError<'BAD_USER_INPUT'> {
  constructor(readonly messages: string[]) {
    super('BAD_USER_INPUT', messages.join(', '));
  }
}

/** A resource that does not exist or that the viewer may not read. */
export class NotFoundError extends DomainError<'NOT_FOUND'> {
  constructor(readonly resource: 'User' | 'Project' | 'Event' | 'Note' | string) {
    super('NOT_FOUND', `404 ${resource} Not Found`);
  }
}

export class UnauthenticatedError extends DomainError<'UNAUTHENTICATED'> {
  constructor() {
    super('UNAUTHENTICATED');
  }
}

export const TOKEN_EXPIRED =
  'Token is expired. You can either do re-authorization or token refresh.';
export const TOKEN_REVOKED = 'Token was revoked. You have to re-authorize from the user.';

export class InvalidTokenError extends DomainError<'INVALID_TOKEN'> {
  constructor(readonly description: string) {
    super('INVALID_TOKEN', description);
  }
}

export const INSUFFICIENT_SCOPE_DESCRIPTION = ERRORS.INSUFFICIENT_SCOPE.text;

export class InsufficientScopeError extends DomainError<'INSUFFICIENT_SCOPE'> {
  constructor(readonly allowedScopes: readonly string[]) {
    super('INSUFFICIENT_SCOPE');
  }
}

export class ForbiddenError extends DomainError<'FORBIDDEN'> {
  constructor(readonly reason?: string) {
    super('FORBIDDEN', reason ? `403 Forbidden - ${reason}` : ERRORS.FORBIDDEN.text);
  }
}

export class InvalidRequestError extends DomainError<'INVALID_REQUEST'> {
  constructor(readonly description: string) {
    super('INVALID_REQUEST', description);
  }
}

export class ConflictError extends DomainError<'CONFLICT'> {
  /** `listed`: a model validation's message, which GitLab's REST answer gives as a list. */
  constructor(
    message: string = ERRORS.CONFLICT.text,
    readonly listed = false,
  ) {
    super('CONFLICT', message);
  }
}

export class NotAllowedError extends DomainError<'NOT_ALLOWED'> {
  constructor(message: string = ERRORS.NOT_ALLOWED.text) {
    super('NOT_ALLOWED', message);
  }
}

/**
 * A record that fails its model's validations, GitLab's `{"message":{"title":["can't be blank"]}}`:
 * each attribute with its messages, in the order they were found.
 */
export class InvalidRecordError extends DomainError<'INVALID_RECORD'> {
  constructor(readonly fields: Record<string, string[]>) {
    super(
      'INVALID_RECORD',
      Object.entries(fields)
        .map(([field, messages]) => messages.map((m) => `${field} ${m}`).join(', '))
        .join(', '),
    );
  }
}

export class UnprocessableError extends DomainError<'UNPROCESSABLE'> {
  constructor(message: string = ERRORS.UNPROCESSABLE.text) {
    super('UNPROCESSABLE', message);
  }
}

/** Retry after `retryAfter` seconds. */
export class ThrottledError extends DomainError<'THROTTLED'> {
  constructor(readonly retryAfter: number) {
    super('THROTTLED', `Too many failed attempts. Try again in ${retryAfter} seconds.`);
  }
}

/**
 * Every concrete service error. A face's mapping takes this union and switches on `code`; the
 * compiler then checks that each code is handled and hands each case its own details.
 */
export type ServiceError =
  | ValidationError
  | NotFoundError
  | UnauthenticatedError
  | InvalidTokenError
  | InsufficientScopeError
  | ForbiddenError
  | InvalidRequestError
  | ConflictError
  | NotAllowedError
  | InvalidRecordError
  | UnprocessableError
  | ThrottledError
  | OAuthProtocolError;

export type OAuthCode = 'OAUTH' | 'OAUTH_CLIENT' | 'OAUTH_FORBIDDEN';

/**
 * The shape of an RFC 6749 error (the class lives in domain/oauth.ts with its vocabulary).
 * Declared here so that ServiceError names every error without a cycle of imports.
 */
export interface OAuthProtocolError extends DomainError<OAuthCode> {
  readonly error: string;
  readonly description: string;
  /** Failed HTTP Basic credentials: the answer carries `WWW-Authenticate: Basic`. */
  readonly basicChallenge: boolean;
}

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof DomainError;
}
