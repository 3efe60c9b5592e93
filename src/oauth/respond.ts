/** RFC 6749 §5 JSON answers: exact `application/json`, never cached (RFC 6749 §5.1, B.7). */
import type { FastifyReply } from 'fastify';
import type { ServiceError } from '../domain/errors.js';

/** The realm named in challenges on Basic client-authentication failures (RFC 6749 §5.2). */
export const BASIC_REALM = 'pulsegate';

export function sendOAuthJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .header('content-type', 'application/json')
    .send(Buffer.from(JSON.stringify(body), 'utf8'));
}

/** Public documents (metadata, keys): JSON that relying parties may cache for `maxAge` seconds. */
export function sendPublicJson(reply: FastifyReply, body: unknown, maxAge: number): FastifyReply {
  allowCors(reply);
  return reply
    .code(200)
    .header('cache-control', `public, max-age=${maxAge}`)
    .header('content-type', 'application/json')
    .send(Buffer.from(JSON.stringify(body), 'utf8'));
}

/**
 * The one mapping of service errors to RFC 6749 JSON: `{error, error_description}`.
 * `WWW-Authenticate` only where RFC 6749 asks for it — a Basic failure — so client libraries
 * report the body's error (D10).
 */
export function sendOAuthError(reply: FastifyReply, error: ServiceError): FastifyReply {
  switch (error.code) {
    case 'THROTTLED':
      reply.header('retry-after', String(error.retryAfter));
      return sendOAuthJson(reply, 429, {
        error: 'too_many_requests',
        error_description: error.message,
      });
    case 'OAUTH':
    case 'OAUTH_CLIENT':
    case 'OAUTH_FORBIDDEN':
      if (error.basicChallenge) {
        reply.header('www-authenticate', `Basic realm="${BASIC_REALM}", charset="UTF-8"`);
      }
      return sendOAuthJson(reply, error.status, {
        error: error.error,
        error_description: error.description,
      });
    default:
      return sendOAuthJson(reply, error.status, {
        error: 'invalid_request',
        error_description: error.message,
      });
  }
}

/** Cross-origin use by browser-based clients (RFC 9700 §2.6 allows it here, never on authorize). */
export function allowCors(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
}

export function sendPreflight(reply: FastifyReply, methods: string): FastifyReply {
  allowCors(reply);
  return reply
    .code(204)
    .header('access-control-allow-methods', methods)
    .header('access-control-allow-headers', 'Authorization, Content-Type, Accept')
    .header('access-control-max-age', '600')
    .send();
}
