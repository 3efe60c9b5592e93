/**
 * `POST /projects/:id/pushes`: a repository's post-receive hook (`pulsegate hook post-receive`)
 * reports a push. Modelled on GitLab's `POST /internal/post_receive`, but authenticated as the
 * pusher (a token with scope `write_repository` and nothing else reaches this route, Developer
 * access) instead of by a shared secret, and carrying the commits, since pulsegate does not host
 * the repository (docs/pushes.md: what a recorded push proves). One `pushed` event per ref change;
 * an `Idempotency-Key` (the hook sends one per run) makes a retried report record nothing again.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actionName } from '../domain/vocabulary.js';
import { parsePushChanges } from '../domain/push-changes.js';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import { authenticate } from '../http/credentials.js';
import { ID_PARAM } from './params.js';
import { presentPushSummary } from './present.js';
import { write } from './writes.js';

type PushRequest = FastifyRequest<{ Params: { id: string }; Body: unknown }>;

export function pushRoutes(app: FastifyInstance, services: Services): void {
  app.post(
    '/projects/:id/pushes',
    { schema: { params: ID_PARAM } },
    async (request: PushRequest, reply) => {
      // As Grape: authentication before the parameters are checked, the project after.
      await authenticate(services, request, reply, ENDPOINT_SCOPES.push, true);
      const changes = parsePushChanges(request.body);
      return write(
        services,
        request,
        reply,
        201,
        async (ops) => {
          const receipt = await ops.pushes.receive(
            request.params.id,
            changes,
            services.config.externalUrl,
          );
          return {
            project_id: receipt.projectId,
            events: receipt.pushes.map(({ eventId, push }) => ({
              id: eventId,
              action_name: actionName('pushed', null, push.action),
              push_data: presentPushSummary(push),
            })),
          };
        },
        ENDPOINT_SCOPES.push,
      );
    },
  );
}
