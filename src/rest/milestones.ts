/** Project milestones (lib/api/milestones.rb): create, get, list, edit with `state_event`, delete. */
import type { FastifyInstance } from 'fastify';
import { MILESTONE_STATE_EVENTS, utcDay } from '../domain/content-rules.js';
import type { Services } from '../services/container.js';
import type { MilestoneView, ProjectView } from '../services/views.js';
import { int, ints, str, strOrNull } from './body.js';
import { day, integer, integers, nullable, required, text, values } from './params.js';
import { presentMilestone } from './entities.js';
import { listRoute, readRoute } from './reads.js';
import { PAGE_PARAMS, PROJECT, params, requireOneOf, write } from './writes.js';

const MILESTONE = {
  ...PROJECT,
  milestone_id: required(integer()),
};
const FIELDS = {
  description: text(),
  due_date: nullable(day()),
  start_date: nullable(day()),
} as const;

export function milestoneRoutes(app: FastifyInstance, services: Services): void {
  // Read per request: the external URL may be settled after routes are registered.
  const url = () => services.config.externalUrl;
  const path = '/projects/:id/milestones';
  const one = `${path}/:milestone_id`;
  const present = (project: ProjectView) => (milestone: MilestoneView) =>
    presentMilestone(milestone, project, url(), utcDay(services.clock.now()));

  app.get(
    path,
    listRoute(
      services,
      {
        ...PROJECT,
        ...PAGE_PARAMS,
        state: values(['active', 'closed']),
        iids: integers(),
        title: text(),
      },
      async (ops, p, page) => {
        const { project } = await ops.projects.get(str(p.id)!);
        const state = str(p.state);
        const list = await ops.milestones.list(String(project.id), {
          ...page,
          state: state === 'active' || state === 'closed' ? state : undefined,
          iids: ints(p.iids),
          title: str(p.title),
        });
        return { items: list.milestones.map(present(project)), total: list.total };
      },
    ),
  );

  app.get(
    one,
    readRoute(services, MILESTONE, async (ops, p) => {
      const { project } = await ops.projects.get(str(p.id)!);
      return present(project)(await ops.milestones.get(String(project.id), int(p.milestone_id)!));
    }),
  );

  app.post(path, (request, reply) =>
    write(services, request, reply, 201, async (ops) => {
      const p = params(request, {
        ...PROJECT,
        title: required(text()),
        ...FIELDS,
      });
      const milestone = await ops.milestones.create(str(p.id)!, {
        title: str(p.title)!,
        description: str(p.description),
        dueDate: strOrNull(p.due_date),
        startDate: strOrNull(p.start_date),
      });
      const { project } = await ops.projects.get(String(milestone.projectId));
      return present(project)(milestone);
    }),
  );

  app.put(one, (request, reply) =>
    write(services, request, reply, 200, async (ops) => {
      const p = params(request, {
        ...MILESTONE,
        title: text(),
        ...FIELDS,
        state_event: values(MILESTONE_STATE_EVENTS),
      });
      requireOneOf(p, ['title', 'description', 'due_date', 'start_date', 'state_event']);
      const milestone = await ops.milestones.update(str(p.id)!, int(p.milestone_id)!, {
        title: str(p.title),
        description: str(p.description),
        dueDate: strOrNull(p.due_date),
        startDate: strOrNull(p.start_date),
        stateEvent: str(p.state_event) as (typeof MILESTONE_STATE_EVENTS)[number] | undefined,
      });
      const { project } = await ops.projects.get(String(milestone.projectId));
      return present(project)(milestone);
    }),
  );

  app.delete(one, (request, reply) =>
    write(services, request, reply, 204, async (ops) => {
      const p = params(request, MILESTONE);
      await ops.milestones.delete(str(p.id)!, int(p.milestone_id)!);
    }),
  );
}
