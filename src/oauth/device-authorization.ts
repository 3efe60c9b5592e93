/**
 * `POST /oauth/authorize_device` (RFC 8628 §3.1–3.2): a client (public: `client_id`; confidential:
 * its secret too) asks for a device code and a user code. Polling happens at `/oauth/token`.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import { readClientCredentials } from './client-auth.js';
import { DEVICE_AUTHORIZATION_PATH } from './discovery.js';
import { readParams } from '../http/params.js';
import { allowCors, sendOAuthJson, sendPreflight } from './respond.js';
import { methodNotAllowed, requireWellFormed } from './token.js';

export function deviceAuthorizationRoutes(app: FastifyInstance, services: Services): void {
  const { provider, device } = services.oauth;

  app.post(DEVICE_AUTHORIZATION_PATH, async (request, reply) => {
    allowCors(reply);
    const params = readParams(request.body);
    requireWellFormed(params);
    const credentials = readClientCredentials(request.headers.authorization, params.values);
    const client = await provider.requireClient(credentials, request.ip);
    return sendOAuthJson(reply, 200, await device.start(client, params.values.scope));
  });
  app.options(DEVICE_AUTHORIZATION_PATH, async (_request, reply) =>
    sendPreflight(reply, 'POST, OPTIONS'),
  );
  methodNotAllowed(DEVICE_AUTHORIZATION_PATH, 'POST')(app);
}
