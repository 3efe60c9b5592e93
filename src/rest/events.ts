/**
 * The Events API: `/events`, `/users/:id/events`, `/projects/:id/events` (and `/:id/events`, the
 * specification's older form). Parse → authenticate → service → present.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { type EventFilter, parseEventFilter } from '../domain/filters.js';
import { type OffsetPage, parseOffsetPage } from '../domain/pagination.js';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { ActivitySource } from '../services/activity.js';
import type { Services } from '../services/container.js';
import type { Principal } from '../services/credentials.js';
import { authenticate } from '../http/credentials.js';
import { setPaginationHeaders } from './pagination.js';
import { presentEvent } from './present.js';
import { type NormalizedQuery, normalizeQuery } from './query.js';
import { sendJsonList } from './respond.js';

/** Pagination and filter parameters validated together, so one 400 names every bad one. */
function parseParams(query: NormalizedQuery): {
  filter: EventFilter;
  page: OffsetPage;
} {
  const messages: string[] = [];
  let page: OffsetPage | undefined;
  let filter: EventFilter | undefined;
  try {
    page = parseOffsetPage({ page: query.page, per_page: query.per_page });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    messages.push(...error.messages);
  }
  try {
    filter = parseEventFilter(query);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    messages.push(...error.messages);
  }
  if (messages.length > 0) throw new ValidationError(messages);
  return { filter: filter!, page: page! };
}

export function eventRoutes(app: FastifyInstance, services: Services): void {
  const { activity, config } = services;

  async function list(
    request: FastifyRequest,
    reply: FastifyReply,
    source: ActivitySource,
    principal: Principal | null,
  ) {
    const query = normalizeQuery(request.query);
    const { filter, page } = parseParams(query);
    const listing = await activity.listPage(source, filter, principal?.viewer ?? null, page);
    const path = request.url.split('?')[0]!;
    setPaginationHeaders(
      reply,
      {
        page: page.page,
        perPage: page.perPage,
        total: listing.total,
        hasNext: listing.hasNext,
        count: listing.events.length,
      },
      config.externalUrl,
      path,
      query,
      { sort: filter.sort },
    );
    return sendJsonList(reply, listing.events, (e) => presentEvent(e, config.externalUrl));
  }

  app.get('/events', async (request, reply) => {
    const principal = await authenticate(services, request, reply, ENDPOINT_SCOPES.user, true);
    const { scope } = normalizeQuery(request.query);
    return list(
      request,
      reply,
      { kind: 'viewer', scope: typeof scope === 'string' ? scope : undefined },
      principal,
    );
  });

  app.get<{ Params: { id: string } }>('/users/:id/events', async (request, reply) => {
    const principal = await authenticate(services, request, reply, ENDPOINT_SCOPES.user, false);
    return list(request, reply, { kind: 'user', idOrUsername: request.params.id }, principal);
  });

  const projectEvents = async (
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
  ) => {
    const principal = await authenticate(services, request, reply, ENDPOINT_SCOPES.project, false);
    return list(request, reply, { kind: 'project', idOrPath: request.params.id }, principal);
  };
  app.get<{ Params: { id: string } }>('/projects/:id/events', projectEvents);
  app.get<{ Params: { id: string } }>('/:id/events', projectEvents);
}
