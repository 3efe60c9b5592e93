/** `GET /oauth/discovery/keys`: the public ID-token keys (RFC 7517), old ones until they expire. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import { JWKS_PATH } from './discovery.js';
import { sendPreflight, sendPublicJson } from './respond.js';

/** Short: a rotated-in key must reach relying parties that cache this document. */
const JWKS_MAX_AGE_S = 60;

export function jwksRoutes(app: FastifyInstance, services: Services): void {
  app.get(JWKS_PATH, async (_request, reply) =>
    sendPublicJson(reply, await services.oauth.signingKeys.jwks(), JWKS_MAX_AGE_S),
  );
  app.options(JWKS_PATH, async (_request, reply) => sendPreflight(reply, 'GET, OPTIONS'));
}
