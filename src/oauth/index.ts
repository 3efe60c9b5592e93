/**
 * The OAuth provider's JSON face: token, revocation, introspection, token info, metadata, and
 * OpenID Connect's keys and userinfo, and device authorization. The authorization endpoint and
 * the device verification page are HTML pages with a session and live in web/.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { DomainError } from '../domain/errors.js';
import { OAuthError } from '../domain/oauth.js';
import type { Services } from '../services/container.js';
import { deviceAuthorizationRoutes } from './device-authorization.js';
import { jwksRoutes } from './jwks.js';
import { metadataRoutes } from './metadata.js';
import { sendOAuthError, sendOAuthJson } from './respond.js';
import { revocationRoutes } from './revoke.js';
import { tokenInfoRoutes } from './token-info.js';
import { tokenRoutes } from './token.js';
import { userInfoRoutes } from './userinfo.js';

export function oauthEndpoints(services: Services) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof DomainError) return sendOAuthError(reply, error);
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        // Unparseable JSON, an unsupported media type, an oversized body: still RFC 6749 JSON.
        return sendOAuthError(reply, new OAuthError('invalid_request', bodyProblem(error)));
      }
      request.log.error({ err: error }, 'unhandled error in OAuth endpoint');
      return sendOAuthJson(reply, 500, {
        error: 'server_error',
        error_description: 'The authorization server encountered an unexpected condition.',
      });
    });
    tokenRoutes(app, services);
    revocationRoutes(app, services);
    tokenInfoRoutes(app, services);
    metadataRoutes(app, services);
    jwksRoutes(app, services);
    userInfoRoutes(app, services);
    deviceAuthorizationRoutes(app, services);
  };
}

function bodyProblem(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'The request body must be application/x-www-form-urlencoded or application/json.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    default:
      return 'The request body could not be parsed.';
  }
}
