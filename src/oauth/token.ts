/** `POST /oauth/token`: parse, read client credentials, hand over to the provider, present. */
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../domain/oauth.js';
import type { Services } from '../services/container.js';
import { readClientCredentials } from './client-auth.js';
import { readParams, type ParamSet } from '../http/params.js';
import { allowCors, sendOAuthJson, sendPreflight } from './respond.js';

/** The body must be an object of single string values; the query string is never read. */
export function requireWellFormed(params: ParamSet): void {
  if (!params.wellFormed) {
    throw new OAuthError('invalid_request', 'The request body must be a set of parameters.');
  }
  const doubled = [...params.doubled][0];
  if (doubled !== undefined) {
    throw new OAuthError(
      'invalid_request',
      `The request contains a duplicated parameter: ${doubled}.`,
    );
  }
  const malformed = [...params.malformed][0];
  if (malformed !== undefined) {
    throw new OAuthError('invalid_request', `The parameter ${malformed} must be a string.`);
  }
}

export function methodNotAllowed(path: string, allow: string) {
  return (app: FastifyInstance) => {
    app.get(path, async (_request, reply) => {
      reply.header('allow', allow);
      allowCors(reply);
      return sendOAuthJson(reply, 405, {
        error: 'invalid_request',
        error_description: `This endpoint accepts ${allow} only.`,
      });
    });
  };
}

export function tokenRoutes(app: FastifyInstance, services: Services): void {
  const { provider } = services.oauth;

  app.post('/oauth/token', async (request, reply) => {
    allowCors(reply);
    const params = readParams(request.body);
    requireWellFormed(params);
    const client = readClientCredentials(request.headers.authorization, params.values);
    const result = await provider.token({ params: params.values, client, address: request.ip });
    if (result.passwordGrant) {
      // Every password grant is audit-logged (RFC 9700 §2.4 deviation; see docs/oauth-decisions.md).
      request.log.info(
        {
          audit: 'oauth.password_grant',
          userId: result.passwordGrant.userId,
          clientId: result.passwordGrant.clientId,
          remoteAddress: request.ip,
        },
        'password grant issued a token',
      );
    }
    return sendOAuthJson(reply, 200, result.response);
  });
  app.options('/oauth/token', async (_request, reply) => sendPreflight(reply, 'POST, OPTIONS'));
  methodNotAllowed('/oauth/token', 'POST')(app);
}
