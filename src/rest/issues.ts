/** Project issues (lib/api/issues.rb): create, get, list, edit with `state_event`. */
import type { FastifyInstance } from 'fastify';
import { TRACKED_STATE_EVENTS, utcDay } from '../domain/content-rules.js';
import type { Services } from '../services/container.js';
import type { IssueDetail } from '../services/content/issues.js';
import { bool, int, intOrNull, ints, str } from './body.js';
import { boolean, integer, integers, nullable, required, text, values } from './params.js';
import { presentIssue } from './entities.js';
import { trackedEdit } from './tracked-edit.js';
import { sendJson } from '../http/json.js';
import { PAGE_PARAMS, PROJECT, listRoute, params, reader, requireOneOf, write } from './writes.js';

const ISSUE = { ...PROJECT, issue_iid: required(integer()) } as const;
const FIELDS = {
  description: text(),
  confidential: boolean(),
  milestone_id: nullable(integer()),
} as const;

export function issueRoutes(app: FastifyInstance, services: Services): void {
  // Read per request: the external URL may be settled after routes are registered.
  const url = () => services.config.externalUrl;
  const present = (detail: IssueDetail) =>
    presentIssue(detail, url(), utcDay(services.clock.now()));

  app.get(
    '/projects/:id/issues',
    listRoute(
      services,
      {
        ...PROJECT,
        ...PAGE_PARAMS,
        state: values(['opened', 'closed', 'all']),
        iids: integers(),
        sort: values(['asc', 'desc']),
      },
      async (ops, p, page) => {
        const state = str(p.state);
        const list = await ops.issues.list(str(p.id)!, {
          ...page,
          state: state === 'opened' || state === 'closed' ? state : undefined,
          iids: ints(p.iids),
          sort: p.sort === 'asc' ? 'asc' : 'desc',
        });
        return { items: list.issues.map(present), total: list.total };
      },
    ),
  );

  app.get('/projects/:id/issues/:issue_iid', async (request, reply) => {
    const ops = await reader(services, request, reply);
    const p = params(request, ISSUE);
    return sendJson(reply, 200, present(await ops.issues.get(str(p.id)!, int(p.issue_iid)!)));
  });

  app.post('/projects/:id/issues', (request, reply) =>
    write(services, request, reply, 201, async (ops) => {
      const p = params(request, {
        ...PROJECT,
        title: required(text()),
        ...FIELDS,
      });
      return present(
        await ops.issues.create(str(p.id)!, {
          title: str(p.title)!,
          description: str(p.description),
          confidential: bool(p.confidential),
          milestoneId: intOrNull(p.milestone_id),
        }),
      );
    }),
  );

  app.put('/projects/:id/issues/:issue_iid', (request, reply) =>
    write(services, request, reply, 200, async (ops) => {
      const p = params(request, {
        ...ISSUE,
        title: text(),
        ...FIELDS,
        state_event: values(TRACKED_STATE_EVENTS),
      });
      requireOneOf(p, ['title', 'description', 'confidential', 'milestone_id', 'state_event']);
      return present(
        await ops.issues.update(str(p.id)!, int(p.issue_iid)!, {
          ...trackedEdit(p),
          confidential: bool(p.confidential),
        }),
      );
    }),
  );
}
