/**
 * The OAuth provider's JSON face: token, revocation, introspection, token info, metadata, and
 * OpenID Connect's keys and userinfo, and device authorization. The authorization endpoint and
 * the device verification page are HTML pages with a session and live in web/.
 */
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../domain/oauth.js';
import { type ClientReason, errorHandler } from '../http/errors.js';
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
    app.setErrorHandler(
      errorHandler('oauth', (problem, reply) => {
        switch (problem.kind) {
          case 'service':
            return sendOAuthError(reply, problem.error);
          case 'client':
            if (problem.reason === 'rate_limited') {
              return sendOAuthJson(reply, 429, {
                error: 'too_many_requests',
                error_description: problem.message,
              });
            }
            // Unparseable JSON, an unsupported media type, an oversized body: still RFC 6749 JSON.
            return sendOAuthError(
              reply,
              new OAuthError('invalid_request', BODY_PROBLEMS[problem.reason]),
            );
          case 'unavailable':
            // RFC 6749 §4.1.2.1's code for a server that cannot handle the request for now.
            return sendOAuthJson(reply, 503, {
              error: 'temporarily_unavailable',
              error_description:
                'The authorization server is temporarily unable to handle the request. Retry shortly.',
            });
          case 'internal':
            return sendOAuthJson(reply, 500, {
              error: 'server_error',
              error_description: 'The authorization server encountered an unexpected condition.',
            });
        }
      }),
    );
    tokenRoutes(app, services);
    revocationRoutes(app, services);
    tokenInfoRoutes(app, services);
    metadataRoutes(app, services);
    jwksRoutes(app, services);
    userInfoRoutes(app, services);
    deviceAuthorizationRoutes(app, services);
  };
}

const BODY_PROBLEMS: Record<Exclude<ClientReason, 'rate_limited'>, string> = {
  media_type: 'The request body must be application/x-www-form-urlencoded or application/json.',
  too_large: 'The request body is too large.',
  bad_url: 'The request body could not be parsed.',
  other: 'The request body could not be parsed.',
};
