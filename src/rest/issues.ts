/** Project issues (lib/api/issues.rb): create, get, list, edit with `state_event`. */
import type { FastifyInstance } from 'fastify';
import { utcDay } from '../domain/content-rules.js';
import type { Services } from '../services/container.js';
import type { IssueDetail } from '../services/content/issues.js';
import { bool, int, intOrNull, str } from './body.js';
import { boolean, integer, nullable, required, text } from './params.js';
import { presentIssue } from './entities.js';
import { trackedEdit, trackedEditParams, trackedListRoute } from './tracked-edit.js';
import { readRoute } from './reads.js';
import { PROJECT, params, requireOneOf, write } from './writes.js';

const ISSUE = { ...PROJECT, issue_iid: required(integer()) } as const;
const EDIT = trackedEditParams(ISSUE, { confidential: boolean() });
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
    trackedListRoute(services, ['opened', 'closed'], async (ops, project, query) => {
      const list = await ops.issues.list(project, query);
      return { items: list.issues.map(present), total: list.total };
    }),
  );

  app.get(
    '/projects/:id/issues/:issue_iid',
    readRoute(services, ISSUE, async (ops, p) =>
      present(await ops.issues.get(str(p.id)!, int(p.issue_iid)!)),
    ),
  );

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
      const p = params(request, EDIT.properties);
      requireOneOf(p, EDIT.anyOf);
      return present(
        await ops.issues.update(str(p.id)!, int(p.issue_iid)!, {
          ...trackedEdit(p),
          confidential: bool(p.confidential),
        }),
      );
    }),
  );
}
