/**
 * Issues and merge requests across projects (lib/api/issues.rb, merge_requests.rb): `GET /issues`
 * and `GET /merge_requests`. By default the caller's own (`scope=created_by_me`, which needs a
 * signed-in caller); `scope=all` is everything the caller can read, anonymous callers included.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { utcDay } from '../domain/content-rules.js';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import type { Listed, TrackedListParams } from '../services/navigation/navigation.js';
import { authenticate } from '../http/credentials.js';
import { int, str } from './body.js';
import { integer, text, values } from './params.js';
import { presentIssue, presentMergeRequest } from './entities.js';
import { PAGE_PARAMS, pageOf, params, sendListed } from './writes.js';

const SCOPES = ['created_by_me', 'assigned_to_me', 'all', 'created-by-me', 'assigned-to-me'];

/**
 * GitLab's orders. pulsegate keeps no priorities, weights, due dates or positions, so every order
 * but `updated_at` and `title` is by creation time.
 */
const ISSUE_ORDERS = [
  'created_at',
  'updated_at',
  'due_date',
  'label_priority',
  'milestone_due',
  'popularity',
  'priority',
  'relative_position',
  'title',
  'weight',
];
const MERGE_REQUEST_ORDERS = [
  'created_at',
  'updated_at',
  'label_priority',
  'merged_at',
  'milestone_due',
  'popularity',
  'priority',
  'title',
];

function listParams(states: readonly string[], orders: readonly string[]) {
  return {
    ...PAGE_PARAMS,
    scope: values(SCOPES),
    state: values(states),
    search: text(),
    author_id: integer(),
    order_by: values(orders),
    sort: values(['asc', 'desc']),
  } as const;
}

const ISSUE_PARAMS = listParams(['opened', 'closed', 'all'], ISSUE_ORDERS);
const MERGE_REQUEST_PARAMS = listParams(
  ['opened', 'closed', 'locked', 'merged', 'all'],
  MERGE_REQUEST_ORDERS,
);

/** Reads the shared parameters; anonymous callers may only ask for `scope=all`. */
async function readList(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  specs: typeof ISSUE_PARAMS | typeof MERGE_REQUEST_PARAMS,
) {
  const query = request.query as { scope?: unknown };
  const principal = await authenticate(
    services,
    request,
    reply,
    ENDPOINT_SCOPES.project,
    query.scope !== 'all',
  );
  const p = params(request, specs);
  const scope = (str(p.scope) ?? 'created_by_me').replace(/-/g, '_');
  const state = str(p.state);
  const list: TrackedListParams = {
    scope: scope as TrackedListParams['scope'],
    state: state === 'all' ? undefined : state,
    search: str(p.search) || undefined,
    authorId: int(p.author_id),
    orderBy: p.order_by === 'updated_at' || p.order_by === 'title' ? p.order_by : 'created_at',
    sort: p.sort === 'asc' ? 'asc' : 'desc',
  };
  return { viewer: principal?.viewer ?? null, list, page: pageOf(p) };
}

export function trackedListRoutes(app: FastifyInstance, services: Services): void {
  const url = () => services.config.externalUrl;
  const today = () => utcDay(services.clock.now());

  const route = <T>(
    path: string,
    properties: typeof ISSUE_PARAMS,
    listed: (
      ...args: Parameters<Services['navigation']['tracked']['issues']>
    ) => Promise<Listed<T>>,
    present: (detail: T, externalUrl: string, today: string) => unknown,
  ) =>
    app.get(path, async (request, reply) => {
      const { viewer, list, page } = await readList(services, request, reply, properties);
      const found = await listed(list, viewer, page);
      const day = today();
      return sendListed(services, request, reply, page, found, (detail) =>
        present(detail, url(), day),
      );
    });

  route(
    '/issues',
    ISSUE_PARAMS,
    (...args) => services.navigation.tracked.issues(...args),
    presentIssue,
  );
  route(
    '/merge_requests',
    MERGE_REQUEST_PARAMS,
    (...args) => services.navigation.tracked.mergeRequests(...args),
    presentMergeRequest,
  );
}
