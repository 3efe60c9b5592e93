/**
 * Stars (lib/api/projects.rb): `POST /projects/:id/star` and `/unstar` (201 with the project, or
 * 304 with no body when nothing changed), and `GET /projects/:id/starrers` (`search`, offset
 * pages, each item `{starred_since, user}`). `GET /users/:id/starred_projects` is a project
 * listing (project-lists.ts).
 */
import type { FastifyInstance } from 'fastify';
import { projectLinksOf } from '../domain/links.js';
import type { StarChange } from '../services/content/stars.js';
import type { Services } from '../services/container.js';
import { str } from './body.js';
import { presentProject } from './entities.js';
import { text } from './params.js';
import { iso, presentUserBasic } from './present.js';
import { listRoute } from './reads.js';
import { PAGE_PARAMS, PROJECT, params, writeAnswer } from './writes.js';

export function starRoutes(app: FastifyInstance, services: Services): void {
  const links = () => projectLinksOf(services.config);
  const answer = (change: StarChange) =>
    change.changed
      ? { status: 201, body: presentProject(change.detail, links()) }
      : { status: 304, body: null };

  app.post('/projects/:id/star', (request, reply) =>
    writeAnswer(services, request, reply, async (ops) =>
      answer(await ops.stars.star(str(params(request, PROJECT).id)!)),
    ),
  );

  app.post('/projects/:id/unstar', (request, reply) =>
    writeAnswer(services, request, reply, async (ops) =>
      answer(await ops.stars.unstar(str(params(request, PROJECT).id)!)),
    ),
  );

  app.get(
    '/projects/:id/starrers',
    listRoute(services, { ...PROJECT, search: text(), ...PAGE_PARAMS }, async (ops, p, page) => {
      const listed = await ops.stars.starrers(str(p.id)!, str(p.search) || undefined, page);
      return {
        total: listed.total,
        items: listed.items.map((s) => ({
          starred_since: iso(s.starredSince),
          user: presentUserBasic(s.user, services.config.externalUrl),
        })),
      };
    }),
  );
}
