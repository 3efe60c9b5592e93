/**
 * `GET|POST /oauth/userinfo` (OIDC Core §5.3): the claims of the access token's user. The token
 * comes in `Authorization: Bearer` or, on POST, as the `access_token` form field (RFC 6750 §2.2);
 * never from the query string. Errors are RFC 6750 challenges.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InsufficientScopeError, InvalidTokenError } from '../domain/errors.js';
import type { Services } from '../services/container.js';
import { USERINFO_PATH } from './discovery.js';
import { readParams } from '../http/params.js';
import { BASIC_REALM, allowCors, sendOAuthJson, sendPreflight } from './respond.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function challenge(reply: FastifyReply, attributes: Record<string, string>): void {
  const parts = Object.entries({ realm: BASIC_REALM, ...attributes }).map(
    ([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`,
  );
  reply.header('www-authenticate', `Bearer ${parts.join(', ')}`);
}

export function userInfoRoutes(app: FastifyInstance, services: Services): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    allowCors(reply);
    const header = request.headers.authorization;
    const fromHeader = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    const body = request.method === 'POST' ? readParams(request.body) : null;
    const fromBody = body?.values.access_token;
    if ((fromHeader !== undefined && fromBody !== undefined) || body?.doubled.has('access_token')) {
      challenge(reply, { error: 'invalid_request' });
      return sendOAuthJson(reply, 400, {
        error: 'invalid_request',
        error_description: 'Present exactly one access token.',
      });
    }
    const token = fromHeader ?? fromBody;
    if (token === undefined) {
      challenge(reply, {});
      return sendOAuthJson(reply, 401, { message: '401 Unauthorized' });
    }
    try {
      return sendOAuthJson(reply, 200, await services.oauth.identity.userInfo(token));
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        challenge(reply, { error: 'invalid_token', error_description: error.description });
        return sendOAuthJson(reply, 401, {
          error: 'invalid_token',
          error_description: error.description,
        });
      }
      if (error instanceof InsufficientScopeError) {
        challenge(reply, { error: 'insufficient_scope', scope: error.allowedScopes.join(' ') });
        return sendOAuthJson(reply, 403, {
          error: 'insufficient_scope',
          error_description: error.message,
          scope: error.allowedScopes.join(' '),
        });
      }
      throw error;
    }
  };
  app.get(USERINFO_PATH, handler);
  app.post(USERINFO_PATH, handler);
  app.options(USERINFO_PATH, async (_request, reply) => sendPreflight(reply, 'GET, POST, OPTIONS'));
}
