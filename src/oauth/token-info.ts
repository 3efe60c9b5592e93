/** `GET /oauth/token/info`: GitLab's description of the presented access token. */
import type { FastifyInstance } from 'fastify';
import { OAUTH_DESCRIPTIONS, OAuthError } from '../domain/oauth.js';
import type { Services } from '../services/container.js';
import { readParams } from '../http/params.js';
import { sendOAuthJson } from './respond.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function tokenInfoRoutes(app: FastifyInstance, services: Services): void {
  const { tokens, applications } = services.oauth;

  app.get('/oauth/token/info', async (request, reply) => {
    reply.header('access-control-allow-origin', '*');
    const header = request.headers.authorization;
    const fromHeader = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    const query = readParams(request.query);
    if (query.doubled.has('access_token')) {
      throw new OAuthError(
        'invalid_request',
        'The request contains a duplicated parameter: access_token.',
      );
    }
    const fromQuery = query.values.access_token;
    if (fromHeader !== undefined && fromQuery !== undefined) {
      throw new OAuthError(
        'invalid_request',
        'Both Authorization header and payload includes access token.',
      );
    }
    const token = fromHeader ?? fromQuery;
    const info =
      token === undefined
        ? null
        : await tokens.info(token, async (id) => (await applications.byId(id))?.uid ?? null);
    if (!info) {
      const description = OAUTH_DESCRIPTIONS.invalid_token;
      reply.header(
        'www-authenticate',
        `Bearer realm="pulsegate", error="invalid_token", error_description="${description}"`,
      );
      return sendOAuthJson(reply, 401, { error: 'invalid_token', error_description: description });
    }
    return sendOAuthJson(reply, 200, info);
  });
}
