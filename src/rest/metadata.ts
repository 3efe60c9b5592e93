/** `GET /metadata` (lib/api/metadata.rb): what this instance is, for clients' feature detection. */
import type { FastifyInstance } from 'fastify';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import { authenticate } from '../http/credentials.js';
import { sendJson } from '../http/json.js';
import { GITLAB_API_VERSION } from './users.js';

export function metadataRoutes(app: FastifyInstance, services: Services, revision: string): void {
  app.get('/metadata', async (request, reply) => {
    await authenticate(services, request, reply, ENDPOINT_SCOPES.user, true);
    // No agent server (KAS) and no Enterprise features.
    return sendJson(reply, 200, {
      version: GITLAB_API_VERSION,
      revision,
      kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
      enterprise: false,
    });
  });
}
