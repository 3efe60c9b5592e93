/**
 * The Events API: `/events`, `/users/:id/events`, `/projects/:id/events` (and `/:id/events`, the
 * specification's older form). Each route reads like GitLab's endpoint file: declare the
 * parameters → authenticate → answer 304 if the client's ETag is current → call the activity
 * service → present.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { eventFilterOf } from '../domain/filters.js';
import { projectLinksOf } from '../domain/links.js';
import { offsetPageOf } from '../domain/pagination.js';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { Viewer } from '../domain/visibility.js';
import type { ActivitySource } from '../services/activity/activity.js';
import type { Services } from '../services/container.js';
import { authenticate } from '../http/credentials.js';
import {
  type Remark,
  answerFromKept,
  answerIfNotModified,
  tagResponses,
} from '../http/conditional.js';
import type { Scope } from '../domain/scopes.js';
import { setPaginationHeaders } from './pagination.js';
import { EVENT_LIST_QUERY, type EventListQuery, ID_PARAM } from './params.js';
import { presentEvent } from './present.js';
import type { NormalizedQuery } from './query.js';
import { itemJson, sendJsonList } from './respond.js';

type ListRequest = FastifyRequest<{ Querystring: EventListQuery }>;
type SourceRoute = { Querystring: EventListQuery; Params: { id: string } };
type SourceRequest = FastifyRequest<SourceRoute>;

const LIST = { schema: { querystring: EVENT_LIST_QUERY } };
const BY_ID = { schema: { params: ID_PARAM, querystring: EVENT_LIST_QUERY } };
/** The version tags' kind for these lists. */
const KIND = 'rest-events';

/**
 * Who may read each list: the scopes a token needs, and whether anonymous requests are refused.
 * One place for both the route and its kept-response check, so the two cannot drift apart.
 */
interface Access {
  scopes: readonly Scope[];
  required: boolean;
}
const VIEWER_ACCESS: Access = { scopes: ENDPOINT_SCOPES.user, required: true };
const USER_ACCESS: Access = { scopes: ENDPOINT_SCOPES.user, required: false };
const PROJECT_ACCESS: Access = { scopes: ENDPOINT_SCOPES.project, required: false };

export function eventRoutes(app: FastifyInstance, services: Services, revision: string): void {
  const { activity, config } = services;
  const eventJson = itemJson(presentEvent, config.pageCache);
  // Every list answers `If-None-Match` (ETag, 304, X-Poll-Interval: see http/conditional.ts).
  tagResponses(app, services);

  /** One page of a source's events, with GitLab's pagination headers. */
  async function list(
    request: ListRequest,
    reply: FastifyReply,
    source: ActivitySource,
    viewer: Viewer | null,
  ) {
    const { query } = request;
    const filter = eventFilterOf(query);
    const page = offsetPageOf(query);
    const resolved = await activity.resolve(source, filter, viewer);
    const mark = await activity.mark(resolved, page);
    const remark: Remark = () => activity.remark(resolved, page);
    const list = { kind: KIND, revision, viewer, mark, remark };
    if (await answerIfNotModified(services, request, reply, list)) return reply;
    const listing = await activity.listPage(resolved, page);
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
      query as NormalizedQuery,
      { sort: filter.sort },
      request.url,
    );
    const links = projectLinksOf(config);
    return sendJsonList(reply, listing.events, (e) => eventJson(e, links));
  }

  /** Authenticates for one of these lists, as its route does. */
  const signIn = (request: FastifyRequest, reply: FastifyReply, access: Access) =>
    authenticate(services, request, reply, access.scopes, access.required);

  /**
   * Runs before the route reads its parameters: a repeated request is answered from the response
   * kept for its URL and viewer while the listing's mark stands (http/conditional.ts
   * `answerFromKept`), which skips the parameters' checks and the listing's resolution. Failing
   * credentials are left to the handler, which meets them again and answers in the API's shape.
   */
  const fromKept = (access: Access) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'GET' || !config.pageCache) return;
    let viewer: Viewer | null;
    try {
      const principal = await signIn(request, reply, access);
      viewer = principal?.viewer ?? null;
    } catch {
      return;
    }
    if (await answerFromKept(services, request, reply, { kind: KIND, revision, viewer })) {
      return reply;
    }
  };

  app.get(
    '/events',
    { ...LIST, onRequest: fromKept(VIEWER_ACCESS) },
    async (request: ListRequest, reply) => {
      const principal = await signIn(request, reply, VIEWER_ACCESS);
      const { scope } = request.query;
      const source = {
        kind: 'viewer',
        scope: typeof scope === 'string' ? scope : undefined,
      } as const;
      return list(request, reply, source, principal!.viewer);
    },
  );

  app.get(
    '/users/:id/events',
    { ...BY_ID, onRequest: fromKept(USER_ACCESS) },
    async (request: SourceRequest, reply) => {
      const principal = await signIn(request, reply, USER_ACCESS);
      const source = { kind: 'user', idOrUsername: request.params.id } as const;
      return list(request, reply, source, principal?.viewer ?? null);
    },
  );

  const projectEvents = async (request: SourceRequest, reply: FastifyReply) => {
    const principal = await signIn(request, reply, PROJECT_ACCESS);
    const source = { kind: 'project', idOrPath: request.params.id } as const;
    return list(request, reply, source, principal?.viewer ?? null);
  };
  const byProject = { ...BY_ID, onRequest: fromKept(PROJECT_ACCESS) };
  app.get<SourceRoute>('/projects/:id/events', byProject, projectEvents);
  app.get<SourceRoute>('/:id/events', byProject, projectEvents);
}
