/** Domain errors in GitLab's REST wire shapes (lib/api/helpers, Grape, rack-oauth2). */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  DomainError,
  ForbiddenError,
  InsufficientScopeError,
  InvalidRequestError,
  InvalidTokenError,
  ValidationError,
} from '../domain/errors.js';
import { sendJson } from './respond.js';

export function restErrorBody(error: DomainError): {
  status: number;
  body: object;
  headers: Record<string, string>;
} {
  if (error instanceof ValidationError)
    return { status: 400, body: { error: error.message }, headers: {} };
  if (error instanceof InvalidTokenError) {
    return {
      status: 401,
      body: { error: 'invalid_token', error_description: error.description },
      headers: {
        'www-authenticate': `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${error.description}"`,
      },
    };
  }
  if (error instanceof InsufficientScopeError) {
    return {
      status: 403,
      body: {
        error: 'insufficient_scope',
        error_description: error.message,
        scope: error.allowedScopes.join(' '),
      },
      headers: {},
    };
  }
  if (error instanceof InvalidRequestError) {
    return {
      status: 400,
      body: { error: 'invalid_request', error_description: error.description },
      headers: {},
    };
  }
  if (error instanceof ForbiddenError)
    return { status: 403, body: { message: error.message }, headers: {} };
  return { status: error.status, body: { message: error.message }, headers: {} };
}

export function replyWithError(reply: FastifyReply, error: DomainError): FastifyReply {
  const { status, body, headers } = restErrorBody(error);
  reply.headers(headers);
  return sendJson(reply, status, body);
}

/**
 * The API's error handler: domain errors in GitLab's shapes; framework 4xx (bad JSON, bad URL,
 * wrong media type, too large) as `{"error": …}`; anything else a 500 without internals.
 */
export function restErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof DomainError) return replyWithError(reply, error);
  const status = error.statusCode ?? 500;
  if (status === 429) {
    return sendJson(reply, 429, { error: error.message, message: '429 Too Many Requests' });
  }
  if (status >= 400 && status < 500) {
    return sendJson(reply, status, { error: `${status} ${clientErrorText(error)}` });
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendJson(reply, 500, { message: '500 Internal Server Error' });
}

function clientErrorText(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported Media Type';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Payload Too Large';
    case 'FST_ERR_BAD_URL':
      return 'Bad Request - malformed URL';
    default:
      return `Bad Request - ${error.message}`;
  }
}
