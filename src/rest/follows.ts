/**
 * Follows (lib/api/users.rb): `POST /users/:id/follow` and `/unfollow` (201 with the user, or 304
 * with no body when nothing changed; 400 past GitLab's limit of followed users), and
 * `GET /users/:id/followers` and `/following` (signed-in callers; offset pages of users).
 */
import type { FastifyInstance } from 'fastify';
import { FollowLimitError } from '../domain/follows.js';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { FollowChange } from '../services/content/follows.js';
import type { Services } from '../services/container.js';
import { authenticate } from '../http/credentials.js';
import { sendJson } from '../http/json.js';
import { int } from './body.js';
import { integer, required } from './params.js';
import { presentUserBasic } from './present.js';
import { PAGE_PARAMS, actorOf, pageOf, params, sendPage, writeAnswer } from './writes.js';

/** `:id` of `/users/:id/…`: GitLab declares it an Integer (anything else is Grape's 400). */
const USER_ID = { id: required(integer()) } as const;

export function followRoutes(app: FastifyInstance, services: Services): void {
  const url = () => services.config.externalUrl;
  const answer = (change: FollowChange) =>
    change.changed
      ? { status: 201, body: presentUserBasic(change.user, url()) }
      : { status: 304, body: null };

  app.post('/users/:id/follow', async (request, reply) => {
    try {
      return await writeAnswer(
        services,
        request,
        reply,
        async (ops) => answer(await ops.follows.follow(int(params(request, USER_ID).id)!)),
        ENDPOINT_SCOPES.user,
      );
    } catch (error) {
      // GitLab answers the model's validation error as a plain 400 message.
      if (error instanceof FollowLimitError) {
        return sendJson(reply, 400, { message: error.message });
      }
      throw error;
    }
  });

  app.post('/users/:id/unfollow', (request, reply) =>
    writeAnswer(
      services,
      request,
      reply,
      async (ops) => answer(await ops.follows.unfollow(int(params(request, USER_ID).id)!)),
      ENDPOINT_SCOPES.user,
    ),
  );

  for (const direction of ['followers', 'following'] as const) {
    app.get(`/users/:id/${direction}`, async (request, reply) => {
      const principal = await authenticate(services, request, reply, ENDPOINT_SCOPES.user, false);
      const p = params(request, { ...USER_ID, ...PAGE_PARAMS });
      const page = pageOf(p);
      const ops = services.content.reading(principal ? actorOf(principal) : null);
      const listed = await ops.follows.list(int(p.id)!, direction, page);
      return sendPage(services, request, reply, page, listed, (user) =>
        presentUserBasic(user, url()),
      );
    });
  }
}
