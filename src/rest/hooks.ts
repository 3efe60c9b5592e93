/**
 * Project hooks (lib/api/project_hooks.rb): `GET/POST /projects/:id/hooks`,
 * `GET/PUT/DELETE /projects/:id/hooks/:hook_id`, `POST …/hooks/:hook_id/test/:trigger`,
 * `GET …/hooks/:hook_id/events` and `POST …/hooks/:hook_id/events/:hook_event_id/resend`.
 * Maintainers only; the token is write-only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { offsetPageOf } from '../domain/pagination.js';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import { HOOK_TRIGGERS, isHookTrigger } from '../domain/webhook-triggers.js';
import type { Services } from '../services/container.js';
import type { Actor } from '../services/content/context.js';
import type { HookInput } from '../services/webhooks/webhooks.js';
import { authenticate } from '../http/credentials.js';
import { sendJson } from '../http/json.js';
import { setPaginationHeaders } from './pagination.js';
import { EVENT_PAGE_QUERY } from './params.js';
import { presentDelivery, presentHook } from './hooks-present.js';
import type { NormalizedQuery } from './query.js';

type HookRequest = FastifyRequest<{
  Params: { id: string; hook_id?: string; trigger?: string; event_id?: string };
  Querystring: { page?: string; per_page?: string };
}>;

const TRUE = new Set(['true', '1', 't', 'yes', 'y', 'on']);
const FALSE = new Set(['false', '0', 'f', 'no', 'n', 'off']);

/** Grape's Boolean coercion: true/false and their usual spellings; anything else is invalid. */
function booleanOf(value: unknown): boolean | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (TRUE.has(text)) return true;
    if (FALSE.has(text)) return false;
  }
  return null;
}

/** The body's hook attributes as Grape declares them, in declaration order for its messages. */
export function hookInputOf(body: unknown, urlRequired: boolean): HookInput {
  const params = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const errors: string[] = [];
  const input: HookInput = {};
  const url = params.url;
  if (url === undefined || url === null || url === '') {
    if (urlRequired) errors.push('url is missing');
  } else if (typeof url !== 'string') {
    errors.push('url is invalid');
  } else {
    input.url = url;
  }
  for (const field of ['token', 'name', 'description'] as const) {
    const value = params[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') errors.push(`${field} is invalid`);
    else input[field] = value;
  }
  const triggers: NonNullable<HookInput['triggers']> = {};
  for (const trigger of HOOK_TRIGGERS) {
    const value = booleanOf(params[trigger]);
    if (value === null) errors.push(`${trigger} is invalid`);
    else if (value !== undefined) triggers[trigger] = value;
  }
  input.triggers = triggers;
  const ssl = booleanOf(params.enable_ssl_verification);
  if (ssl === null) errors.push('enable_ssl_verification is invalid');
  else if (ssl !== undefined) input.enableSslVerification = ssl;
  if (errors.length > 0) throw new ValidationError(errors);
  return input;
}

/** `:hook_id` and `:hook_event_id` are Integers in Grape: anything else is `… is invalid`. */
function integerParam(name: string, value: string | undefined): number {
  // Up to 2^53 − 1: delivery ids are 64-bit (migration 026); a larger one would be rounded.
  if (value === undefined || !/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new ValidationError([`${name} is invalid`]);
  return Number(value);
}

export function hookRoutes(app: FastifyInstance, services: Services): void {
  const { webhooks, config } = services;

  async function actorOf(request: FastifyRequest, reply: FastifyReply): Promise<Actor> {
    const principal = await authenticate(services, request, reply, ENDPOINT_SCOPES.project, true);
    return { user: principal!.user, viewer: principal!.viewer };
  }

  app.get('/projects/:id/hooks', async (request: HookRequest, reply) => {
    const actor = await actorOf(request, reply);
    const hooks = await webhooks.list(actor, request.params.id);
    return sendJson(reply, 200, hooks.map(presentHook));
  });

  app.post('/projects/:id/hooks', async (request: HookRequest, reply) => {
    const actor = await actorOf(request, reply);
    const input = hookInputOf(request.body, true) as HookInput & { url: string };
    const hook = await webhooks.create(actor, request.params.id, input);
    return sendJson(reply, 201, presentHook(hook));
  });

  app.get('/projects/:id/hooks/:hook_id', async (request: HookRequest, reply) => {
    const actor = await actorOf(request, reply);
    const hookId = integerParam('hook_id', request.params.hook_id);
    return sendJson(reply, 200, presentHook(await webhooks.get(actor, request.params.id, hookId)));
  });

  app.put('/projects/:id/hooks/:hook_id', async (request: HookRequest, reply) => {
    const actor = await actorOf(request, reply);
    const hookId = integerParam('hook_id', request.params.hook_id);
    const input = hookInputOf(request.body, true);
    const hook = await webhooks.update(actor, request.params.id, hookId, input);
    return sendJson(reply, 200, presentHook(hook));
  });

  app.delete('/projects/:id/hooks/:hook_id', async (request: HookRequest, reply) => {
    const actor = await actorOf(request, reply);
    const hookId = integerParam('hook_id', request.params.hook_id);
    await webhooks.remove(actor, request.params.id, hookId);
    return reply.code(204).send();
  });

  app.post('/projects/:id/hooks/:hook_id/test/:trigger', async (request: HookRequest, reply) => {
    const actor = await actorOf(request, reply);
    const hookId = integerParam('hook_id', request.params.hook_id);
    const { trigger } = request.params;
    if (!isHookTrigger(trigger)) throw new ValidationError(['trigger does not have a valid value']);
    await webhooks.test(actor, request.params.id, hookId, trigger);
    return sendJson(reply, 201, { message: '201 Created' });
  });

  app.get(
    '/projects/:id/hooks/:hook_id/events',
    { schema: { querystring: EVENT_PAGE_QUERY } },
    async (request: HookRequest, reply) => {
      const actor = await actorOf(request, reply);
      const hookId = integerParam('hook_id', request.params.hook_id);
      const page = offsetPageOf(request.query);
      const { deliveries, total } = await webhooks.deliveries(actor, request.params.id, hookId, {
        offset: (page.page - 1) * page.perPage,
        limit: page.perPage,
      });
      setPaginationHeaders(
        reply,
        {
          page: page.page,
          perPage: page.perPage,
          total,
          hasNext: page.page * page.perPage < total,
          count: deliveries.length,
        },
        config.externalUrl,
        request.url.split('?')[0]!,
        request.query as NormalizedQuery,
        {},
      );
      return sendJson(reply, 200, deliveries.map(presentDelivery));
    },
  );

  app.post(
    '/projects/:id/hooks/:hook_id/events/:event_id/resend',
    async (request: HookRequest, reply) => {
      const actor = await actorOf(request, reply);
      const hookId = integerParam('hook_id', request.params.hook_id);
      const eventId = integerParam('hook_event_id', request.params.event_id);
      const queued = await webhooks.resend(actor, request.params.id, hookId, eventId);
      return sendJson(reply, 201, presentDelivery(queued));
    },
  );
}
