/** Finding users (lib/api/users.rb): `GET /users/:id` and `GET /users?username=…|search=…`. */
import type { FastifyInstance } from 'fastify';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import type { UserView } from '../services/views.js';
import { authenticate } from '../http/credentials.js';
import { sendJson } from '../http/json.js';
import { int, str } from './body.js';
import { integer, required, text } from './params.js';
import { presentUser, presentUserForAdmin } from './navigation-entities.js';
import { presentUserBasic } from './present.js';
import { PAGE_PARAMS, pageOf, params, sendListed } from './writes.js';

export function userLookupRoutes(app: FastifyInstance, services: Services): void {
  const url = () => services.config.externalUrl;

  app.get('/users', async (request, reply) => {
    const principal = await authenticate(services, request, reply, ENDPOINT_SCOPES.user, false);
    const p = params(request, {
      ...PAGE_PARAMS,
      username: text(),
      search: text(),
    });
    const viewer = principal?.viewer ?? null;
    const page = pageOf(p);
    const listed = await services.navigation.users.list(
      { username: str(p.username) || undefined, search: str(p.search) || undefined },
      viewer,
      page,
    );
    const present = viewer?.admin
      ? (user: UserView) => presentUserForAdmin(user, url())
      : (user: UserView) => presentUserBasic(user, url());
    return sendListed(services, request, reply, page, listed, present);
  });

  app.get('/users/:id', async (request, reply) => {
    const principal = await authenticate(services, request, reply, ENDPOINT_SCOPES.user, false);
    const p = params(request, { id: required(integer()) });
    const viewer = principal?.viewer ?? null;
    const found = await services.navigation.users.get(int(p.id)!, viewer);
    return sendJson(
      reply,
      200,
      viewer?.admin
        ? presentUserForAdmin(found.user, url(), found.follows)
        : presentUser(found.user, found.profileReadable, url(), found.follows),
    );
  });
}
