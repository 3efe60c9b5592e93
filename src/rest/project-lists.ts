/**
 * Project listings (lib/api/projects.rb): `GET /projects`, `/users/:id/projects`,
 * `/users/:id/contributed_projects`, `/users/:id/starred_projects`, and `GET /projects/:id/labels`. Offset pages with GitLab's
 * headers, or keyset pages (`pagination=keyset`, ordered by id) with only a `Link` to the next.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import { ACCESS_LEVEL_VALUES, VISIBILITIES } from '../domain/vocabulary.js';
import type { Principal } from '../services/accounts/credentials.js';
import type { Services } from '../services/container.js';
import type {
  ListedProject,
  Listed,
  ProjectListParams,
} from '../services/navigation/navigation.js';
import { authenticate } from '../http/credentials.js';
import { sendJson } from '../http/json.js';
import { type ParamValue, bool, int, str } from './body.js';
import { boolean, integer, required, text, values } from './params.js';
import { projectLinksOf } from '../domain/links.js';
import { presentProject, presentProjectBasic } from './entities.js';
import { setKeysetLink } from './pagination.js';
import type { NormalizedQuery } from './query.js';
import { reader } from './reads.js';
import { PAGE_PARAMS, pageOf, params, sendListed, sendPage } from './writes.js';

const ORDERS = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'star_count'];

/** The parameters every project listing declares. */
export const PROJECT_LIST_PARAMS = {
  ...PAGE_PARAMS,
  order_by: values(ORDERS),
  sort: values(['asc', 'desc']),
  archived: boolean(),
  visibility: values(VISIBILITIES),
  search: text(),
  simple: boolean(),
  owned: boolean(),
  membership: boolean(),
  starred: boolean(),
  min_access_level: values(ACCESS_LEVEL_VALUES.map(String)),
  id_after: integer(),
  id_before: integer(),
  pagination: values(['offset', 'keyset']),
} as const;

type Values = { [K in keyof typeof PROJECT_LIST_PARAMS]?: ParamValue };

/** What the service needs of the declared parameters (GitLab's defaults: created_at, desc). */
export function projectListParamsOf(p: Values): ProjectListParams {
  const order = str(p.order_by) ?? 'created_at';
  const minAccess = str(p.min_access_level);
  return {
    membership: bool(p.membership),
    owned: bool(p.owned),
    starred: bool(p.starred),
    search: str(p.search) || undefined,
    visibility: str(p.visibility),
    minAccessLevel: minAccess === undefined ? undefined : Number(minAccess),
    idAfter: int(p.id_after),
    idBefore: int(p.id_before),
    orderBy: order as ProjectListParams['orderBy'],
    sort: p.sort === 'asc' ? 'asc' : 'desc',
    keyset: p.pagination === 'keyset',
  };
}

/** Authenticates a project read: anonymous allowed, `api` or `read_api`. */
export function projectReader(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Principal | null> {
  return authenticate(services, request, reply, ENDPOINT_SCOPES.project, false);
}

/**
 * A page of projects: BasicProjectDetails for `simple` and for anonymous callers, the project
 * with its permissions otherwise (GitLab's ProjectWithAccess).
 */
export function sendProjects(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  listed: Listed<ListedProject>,
  p: Values,
  principal: Principal | null,
): FastifyReply {
  const links = projectLinksOf(services.config);
  const simple = bool(p.simple) === true || principal === null;
  const present = (item: ListedProject) =>
    simple
      ? presentProjectBasic(item.project, item.starCount, links, item.namespace ?? undefined)
      : presentProject(item, links, item.namespace ?? undefined);
  if (p.pagination === 'keyset') {
    const next =
      listed.nextId === null || listed.nextId === undefined
        ? null
        : {
            key: p.sort === 'asc' ? ('id_after' as const) : ('id_before' as const),
            id: listed.nextId,
          };
    setKeysetLink(
      reply,
      services.config.externalUrl,
      request.url.split('?')[0]!,
      request.query as NormalizedQuery,
      next,
    );
    return sendJson(reply, 200, listed.items.map(present));
  }
  return sendListed(services, request, reply, pageOf(p), listed, present);
}

export function projectListRoutes(app: FastifyInstance, services: Services): void {
  const { navigation } = services;

  app.get('/projects', async (request, reply) => {
    const principal = await projectReader(services, request, reply);
    const p = params(request, PROJECT_LIST_PARAMS);
    const listed = await navigation.projects.all(
      projectListParamsOf(p),
      principal?.viewer ?? null,
      pageOf(p),
      principal?.user,
    );
    return sendProjects(services, request, reply, listed, p, principal);
  });

  const USER = { id: required(text()) } as const;

  // A user's own projects, those they contributed to and starred: the same read of another list.
  for (const [path, whose] of [
    ['/users/:id/projects', 'own'],
    ['/users/:id/contributed_projects', 'contributed'],
    ['/users/:id/starred_projects', 'starred'],
  ] as const) {
    app.get(path, async (request, reply) => {
      const principal = await projectReader(services, request, reply);
      const p = params(request, { ...USER, ...PROJECT_LIST_PARAMS });
      const listed = await navigation.projects.ofUser(
        whose,
        str(p.id)!,
        projectListParamsOf(p),
        principal?.viewer ?? null,
        pageOf(p),
        principal?.user,
      );
      return sendProjects(services, request, reply, listed, p, principal);
    });
  }

  // Labels are not modelled: no project has any, and none can be made. The list is truthfully
  // empty for anyone who can read the project (404 otherwise, as every project route answers).
  app.get('/projects/:id/labels', async (request, reply) => {
    const ops = await reader(services, request, reply);
    const p = params(request, { id: required(text()), ...PAGE_PARAMS });
    await ops.projects.get(str(p.id)!);
    return sendPage(services, request, reply, pageOf(p), { items: [], total: 0 }, (x) => x);
  });
}
