/** `POST /oauth/revoke` (RFC 7009) and `POST /oauth/introspect` (RFC 7662). */
import type { FastifyInstance } from 'fastify';
import { OAuthError, missingParameter } from '../domain/oauth.js';
import type { Services } from '../services/container.js';
import { readClientCredentials } from './client-auth.js';
import { readParams } from '../http/params.js';
import { allowCors, sendOAuthJson, sendPreflight } from './respond.js';
import { methodNotAllowed, requireWellFormed } from './token.js';

export const INTROSPECTION_UNAUTHORIZED =
  'Request need to be authorized. Required parameter for authorizing request is missing or invalid.';

export function revocationRoutes(app: FastifyInstance, services: Services): void {
  const { applications, tokens } = services.oauth;

  app.post('/oauth/revoke', async (request, reply) => {
    allowCors(reply);
    const params = readParams(request.body);
    requireWellFormed(params);
    const credentials = readClientCredentials(request.headers.authorization, params.values);
    const client = credentials ? await applications.authenticate(credentials, request.ip) : null;
    const token = params.values.token;
    if (token === undefined) throw new OAuthError('invalid_request', missingParameter('token'));
    await tokens.revoke(client, token, params.values.token_type_hint);
    return sendOAuthJson(reply, 200, {});
  });
  app.options('/oauth/revoke', async (_request, reply) => sendPreflight(reply, 'POST, OPTIONS'));
  methodNotAllowed('/oauth/revoke', 'POST')(app);

  app.post('/oauth/introspect', async (request, reply) => {
    const params = readParams(request.body);
    requireWellFormed(params);
    const credentials = readClientCredentials(request.headers.authorization, params.values);
    if (credentials === null) throw new OAuthError('invalid_request', INTROSPECTION_UNAUTHORIZED);
    // Introspection needs a real client authentication: a bare client_id proves nothing.
    if (credentials.clientSecret === undefined) {
      throw new OAuthError('invalid_client');
    }
    const client = await applications.authenticate(credentials, request.ip);
    const token = params.values.token;
    if (token === undefined) throw new OAuthError('invalid_request', missingParameter('token'));
    return sendOAuthJson(
      reply,
      200,
      await tokens.introspect(client, token, params.values.token_type_hint),
    );
  });
  methodNotAllowed('/oauth/introspect', 'POST')(app);
}
