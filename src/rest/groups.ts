/**
 * Groups (lib/api/groups.rb), derived from the namespaces projects live in: `GET /groups`,
 * `GET /groups/:id` (with the projects directly in it), `GET /groups/:id/projects`. A group is
 * visible to whoever can read one of its projects; membership of groups is not modelled.
 */
import type { FastifyInstance } from 'fastify';
import { ACCESS_LEVEL_VALUES } from '../domain/vocabulary.js';
import type { Services } from '../services/container.js';
import type { GroupView } from '../services/navigation/navigation.js';
import { sendJson } from '../http/json.js';
import { bool, str } from './body.js';
import { boolean, required, text, values } from './params.js';
import { projectLinksOf } from '../domain/links.js';
import { presentProjectBasic } from './entities.js';
import { presentGroup } from './navigation-entities.js';
import {
  PROJECT_LIST_PARAMS,
  projectListParamsOf,
  projectReader,
  sendProjects,
} from './project-lists.js';
import { PAGE_PARAMS, pageOf, params, sendListed } from './writes.js';

const GROUP = { id: required(text()) } as const;

export function groupRoutes(app: FastifyInstance, services: Services): void {
  const url = () => services.config.externalUrl;

  app.get('/groups', async (request, reply) => {
    const principal = await projectReader(services, request, reply);
    const p = params(request, {
      ...PAGE_PARAMS,
      search: text(),
      owned: boolean(),
      min_access_level: values(ACCESS_LEVEL_VALUES.map(String)),
      top_level_only: boolean(),
      all_available: boolean(),
      order_by: values(['name', 'path', 'id', 'similarity']),
      sort: values(['asc', 'desc']),
    });
    const page = pageOf(p);
    const order = str(p.order_by);
    const minAccess = str(p.min_access_level);
    const listed = await services.navigation.groups.list(
      {
        search: str(p.search) || undefined,
        owned: bool(p.owned),
        minAccessLevel: minAccess === undefined ? undefined : Number(minAccess),
        topLevelOnly: bool(p.top_level_only),
        orderBy: order === 'id' || order === 'path' ? order : 'name',
        sort: p.sort === 'desc' ? 'desc' : 'asc',
      },
      principal?.viewer ?? null,
      page,
    );
    return sendListed(services, request, reply, page, listed, (g: GroupView) =>
      presentGroup(g, url()),
    );
  });

  app.get('/groups/:id', async (request, reply) => {
    const principal = await projectReader(services, request, reply);
    const p = params(request, GROUP);
    const found = await services.navigation.groups.get(str(p.id)!, principal?.viewer ?? null);
    const links = projectLinksOf(services.config);
    return sendJson(reply, 200, {
      ...presentGroup(found.group, url()),
      projects: found.projects.map((item) =>
        presentProjectBasic(item.project, item.starCount, links, item.namespace ?? undefined),
      ),
    });
  });

  app.get('/groups/:id/projects', async (request, reply) => {
    const principal = await projectReader(services, request, reply);
    const p = params(request, {
      ...GROUP,
      ...PROJECT_LIST_PARAMS,
      include_subgroups: boolean(),
    });
    const listed = await services.navigation.groups.projectsOf(
      str(p.id)!,
      bool(p.include_subgroups) === true,
      projectListParamsOf(p),
      principal?.viewer ?? null,
      pageOf(p),
      principal?.user,
    );
    return sendProjects(services, request, reply, listed, p, principal);
  });
}
