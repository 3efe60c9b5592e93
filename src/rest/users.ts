/** `GET /user` (the token's owner) and `GET /version`. */
import type { FastifyInstance } from 'fastify';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import { authenticate } from '../http/credentials.js';
import { presentCurrentUser } from './present.js';
import { sendJson } from '../http/json.js';

/** The GitLab API level pulsegate implements; clients use it for feature detection. */
export const GITLAB_API_VERSION = '17.5.0';

export function userRoutes(app: FastifyInstance, services: Services, revision: string): void {
  app.get('/user', async (request, reply) => {
    const principal = (await authenticate(services, request, reply, ENDPOINT_SCOPES.user, true))!;
    const follows = await services.navigation.users.follows(principal.user, principal.viewer);
    return sendJson(
      reply,
      200,
      presentCurrentUser(principal.user, services.config.externalUrl, follows),
    );
  });

  app.get('/version', async (request, reply) => {
    await authenticate(services, request, reply, ENDPOINT_SCOPES.user, true);
    return sendJson(reply, 200, { version: GITLAB_API_VERSION, revision, kas: { enabled: false } });
  });
}
