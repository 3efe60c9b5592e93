/**
 * Namespaces (lib/api/namespaces.rb): `GET /namespaces`, where the caller may create projects, and
 * `GET /namespaces/:id` by id or URL-encoded path. Signed-in callers only.
 */
import type { FastifyInstance } from 'fastify';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import type { NamespaceView } from '../services/navigation/navigation.js';
import { authenticate } from '../http/credentials.js';
import { sendJson } from '../http/json.js';
import { str } from './body.js';
import { boolean, required, text } from './params.js';
import { presentNamespace } from './navigation-entities.js';
import { PAGE_PARAMS, pageOf, params, sendListed } from './writes.js';

export function namespaceRoutes(app: FastifyInstance, services: Services): void {
  const url = () => services.config.externalUrl;
  const signIn = async (
    request: Parameters<typeof authenticate>[1],
    reply: Parameters<typeof authenticate>[2],
  ) => (await authenticate(services, request, reply, ENDPOINT_SCOPES.project, true))!;

  app.get('/namespaces', async (request, reply) => {
    const principal = await signIn(request, reply);
    const p = params(request, {
      ...PAGE_PARAMS,
      search: text(),
      // Every namespace listed is one the caller owns (group membership is not modelled).
      owned_only: boolean(),
    });
    const page = pageOf(p);
    const listed = await services.navigation.groups.namespaces(
      principal.user,
      principal.viewer,
      str(p.search) || undefined,
      page,
    );
    return sendListed(services, request, reply, page, listed, (n: NamespaceView) =>
      presentNamespace(n, url()),
    );
  });

  app.get('/namespaces/:id', async (request, reply) => {
    const principal = await signIn(request, reply);
    const p = params(request, { id: required(text()) });
    const namespace = await services.navigation.groups.namespace(str(p.id)!, principal.viewer);
    return sendJson(reply, 200, presentNamespace(namespace, url()));
  });
}
