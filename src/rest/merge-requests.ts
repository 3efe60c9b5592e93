/**
 * Project merge requests (lib/api/merge_requests.rb, merge_request_approvals.rb): create, get,
 * list, edit with `state_event`, merge, approve and the approval state.
 */
import type { FastifyInstance } from 'fastify';
import { utcDay } from '../domain/content-rules.js';
import type { Services } from '../services/container.js';
import type { MergeRequestDetail } from '../services/content/merge-requests.js';
import { int, intOrNull, str } from './body.js';
import { integer, nullable, required, text } from './params.js';
import { presentApprovals, presentMergeRequest } from './entities.js';
import { trackedEdit, trackedEditParams, trackedListRoute } from './tracked-edit.js';
import { readRoute } from './reads.js';
import { PROJECT, params, requireOneOf, write } from './writes.js';

const MR = {
  ...PROJECT,
  merge_request_iid: required(integer()),
};
const EDIT = trackedEditParams(MR, { target_branch: text() });
const STATES = ['opened', 'closed', 'merged', 'locked'] as const;

export function mergeRequestRoutes(app: FastifyInstance, services: Services): void {
  // Read per request: the external URL may be settled after routes are registered.
  const url = () => services.config.externalUrl;
  const present = (detail: MergeRequestDetail) =>
    presentMergeRequest(detail, url(), utcDay(services.clock.now()));
  const path = '/projects/:id/merge_requests';
  const one = `${path}/:merge_request_iid`;

  app.get(
    path,
    trackedListRoute(services, STATES, async (ops, project, query) => {
      const list = await ops.mergeRequests.list(project, query);
      return { items: list.mergeRequests.map(present), total: list.total };
    }),
  );

  app.get(
    one,
    readRoute(services, MR, async (ops, p) =>
      present(await ops.mergeRequests.get(str(p.id)!, int(p.merge_request_iid)!)),
    ),
  );

  app.post(path, (request, reply) =>
    write(services, request, reply, 201, async (ops) => {
      const p = params(request, {
        ...PROJECT,
        source_branch: required(text()),
        target_branch: required(text()),
        title: required(text()),
        description: text(),
        milestone_id: nullable(integer()),
      });
      return present(
        await ops.mergeRequests.create(str(p.id)!, {
          sourceBranch: str(p.source_branch)!,
          targetBranch: str(p.target_branch)!,
          title: str(p.title)!,
          description: str(p.description),
          milestoneId: intOrNull(p.milestone_id),
        }),
      );
    }),
  );

  app.put(one, (request, reply) =>
    write(services, request, reply, 200, async (ops) => {
      const p = params(request, EDIT.properties);
      requireOneOf(p, EDIT.anyOf);
      return present(
        await ops.mergeRequests.update(str(p.id)!, int(p.merge_request_iid)!, {
          ...trackedEdit(p),
          targetBranch: str(p.target_branch),
        }),
      );
    }),
  );

  // `merge_commit_message`, `squash`, `sha` and friends are accepted and have nothing to act on:
  // pulsegate keeps no repository contents.
  app.put(`${one}/merge`, (request, reply) =>
    write(services, request, reply, 200, async (ops) => {
      const p = params(request, MR);
      return present(await ops.mergeRequests.merge(str(p.id)!, int(p.merge_request_iid)!));
    }),
  );

  app.post(`${one}/approve`, (request, reply) =>
    write(services, request, reply, 201, async (ops) => {
      const p = params(request, MR);
      return presentApprovals(
        await ops.mergeRequests.approve(str(p.id)!, int(p.merge_request_iid)!),
        url(),
      );
    }),
  );

  app.get(
    `${one}/approvals`,
    readRoute(services, MR, async (ops, p) =>
      presentApprovals(
        await ops.mergeRequests.approvalState(str(p.id)!, int(p.merge_request_iid)!),
        url(),
      ),
    ),
  );
}
