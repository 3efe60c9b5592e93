/** `POST /projects` and `GET /projects/:id` (lib/api/projects.rb). */
import type { FastifyInstance } from 'fastify';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { VISIBILITIES } from '../domain/vocabulary.js';
import type { Services } from '../services/container.js';
import { str } from './body.js';
import { text, values } from './params.js';
import { projectLinksOf } from '../domain/links.js';
import { presentProject } from './entities.js';
import { sendJson } from '../http/json.js';
import { reader } from './reads.js';
import { params, write } from './writes.js';

const NEW_PROJECT = {
  name: text(),
  path: text(),
  namespace_id: text(),
  namespace: text(),
  description: text(),
  visibility: values(VISIBILITIES),
  default_branch: text(),
} as const;

export function projectRoutes(app: FastifyInstance, services: Services): void {
  // Read per request: the external URL may be settled after routes are registered.
  const links = () => projectLinksOf(services.config);

  app.post('/projects', async (request, reply) => {
    // A numeric `namespace_id` names a user's namespace (their id) or a group (GET /namespaces);
    // resolved before the write's transaction, whose store is the only one it may use.
    const given = str(params(request, { namespace_id: NEW_PROJECT.namespace_id }).namespace_id);
    const resolved =
      given !== undefined && /^\d+$/.test(given)
        ? await services.navigation.groups.namespacePathOf(Number(given))
        : undefined;
    return write(services, request, reply, 201, async (ops) => {
      const p = params(request, NEW_PROJECT);
      if (p.name === undefined && p.path === undefined) {
        throw new ValidationError([
          'name, path are missing, at least one parameter must be provided',
        ]);
      }
      // `namespace_id` is the id of the caller's own namespace (their user id) or a path.
      const namespaceId = str(p.namespace_id);
      const me = ops.context.actor!.user;
      const own = namespaceId === undefined || namespaceId === String(me.id);
      // A number that names no namespace is not a path either.
      if (!own && resolved === undefined && /^\d+$/.test(namespaceId)) {
        throw new NotFoundError('Namespace');
      }
      const namespace = own ? str(p.namespace) : (resolved ?? namespaceId);
      const created = await ops.projects.create({
        name: str(p.name),
        path: str(p.path),
        namespace,
        description: str(p.description),
        visibility: str(p.visibility) as (typeof VISIBILITIES)[number] | undefined,
        defaultBranch: str(p.default_branch),
      });
      return presentProject(created, links());
    });
  });

  app.get('/projects/:id', async (request, reply) => {
    const ops = await reader(services, request, reply);
    const found = await ops.projects.get((request.params as { id: string }).id);
    const namespace = await services.navigation.projects.namespaceOf(found.project.namespace);
    return sendJson(reply, 200, presentProject(found, links(), namespace));
  });
}
