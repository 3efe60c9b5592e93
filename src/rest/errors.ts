/** Service errors and request problems in GitLab's REST wire shapes (lib/api/helpers, Grape). */
import type { FastifyReply } from 'fastify';
import type { ServiceError } from '../domain/errors.js';
import { type ClientReason, errorHandler } from '../http/errors.js';
import { sendJson } from '../http/json.js';

export interface WireError {
  status: number;
  body: object;
  headers: Record<string, string>;
}

const REALM = 'Protected by OAuth 2.0';

/** The one mapping of service errors to GitLab's bodies and headers. */
export function restError(error: ServiceError): WireError {
  const plain = (body: object, headers: Record<string, string> = {}) => ({
    status: error.status,
    body,
    headers,
  });
  switch (error.code) {
    case 'BAD_USER_INPUT':
      return plain({ error: error.message });
    case 'INVALID_TOKEN':
      return plain(
        { error: 'invalid_token', error_description: error.description },
        {
          'www-authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="${error.description}"`,
        },
      );
    case 'INSUFFICIENT_SCOPE': {
      const scope = error.allowedScopes.join(' ');
      // RFC 6750 §3: the challenge names the error and the scope that would do.
      return plain(
        { error: 'insufficient_scope', error_description: error.message, scope },
        {
          'www-authenticate': `Bearer realm="${REALM}", error="insufficient_scope", error_description="${error.message}", scope="${scope}"`,
        },
      );
    }
    case 'INVALID_REQUEST':
      return plain({ error: 'invalid_request', error_description: error.description });
    case 'OAUTH':
    case 'OAUTH_CLIENT':
    case 'OAUTH_FORBIDDEN':
      return plain({ error: error.error, error_description: error.description });
    case 'THROTTLED':
      return plain({ message: error.message }, { 'retry-after': String(error.retryAfter) });
    case 'INVALID_RECORD':
      return plain({ message: error.fields });
    case 'UNAUTHENTICATED':
    case 'FORBIDDEN':
    case 'NOT_FOUND':
    case 'NOT_ALLOWED':
    case 'UNPROCESSABLE':
      return plain({ message: error.message });
    case 'CONFLICT':
      return plain({ message: error.listed ? [error.message] : error.message });
  }
}

export function replyWithError(reply: FastifyReply, error: ServiceError): FastifyReply {
  const { status, body, headers } = restError(error);
  reply.headers(headers);
  return sendJson(reply, status, body);
}

const CLIENT_TEXT: Record<Exclude<ClientReason, 'rate_limited' | 'other'>, string> = {
  media_type: 'Unsupported Media Type',
  too_large: 'Payload Too Large',
  bad_url: 'Bad Request - malformed URL',
};

/**
 * The API's error handler: service errors in GitLab's shapes; framework 4xx (bad JSON, bad URL,
 * wrong media type, too large) as `{"error": …}`; the database out of reach a 503; anything else
 * a 500 without internals.
 */
export const restErrorHandler = errorHandler('rest', (problem, reply) => {
  switch (problem.kind) {
    case 'service':
      return replyWithError(reply, problem.error);
    case 'client': {
      const { status, reason, message } = problem;
      if (reason === 'rate_limited') {
        return sendJson(reply, 429, { error: message, message: '429 Too Many Requests' });
      }
      const text = reason === 'other' ? `Bad Request - ${message}` : CLIENT_TEXT[reason];
      return sendJson(reply, status, { error: `${status} ${text}` });
    }
    case 'unavailable':
      // GitLab's wording for its own 503s (readiness, maintenance).
      return sendJson(reply, 503, { message: '503 Service Unavailable' });
    case 'internal':
      return sendJson(reply, 500, { message: '500 Internal Server Error' });
  }
});
