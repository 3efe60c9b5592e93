/**
 * The Atom face, at GitLab's paths: `/:username.atom`, `/:namespace/…/:project.atom` (nested
 * groups) and `/dashboard/projects.atom`, and beside it the dashboard's other tabs,
 * `/dashboard/starred.atom` and `/dashboard/followed.atom` (REST `scope=starred|followed`). Each feed is the newest 20 events of the same listing
 * the API serves for that source and reader (so visibility is exactly the API's), presented as
 * Atom, tagged for conditional polling and kept like the API's lists (http/conditional.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ServiceError, UnauthenticatedError } from '../domain/errors.js';
import { projectWebUrl, userWebUrl } from '../domain/links.js';
import { type Problem, errorHandler } from '../http/errors.js';
import { send, validators } from '../http/conditional.js';
import type { ActivitySource } from '../services/activity/activity.js';
import type { Services } from '../services/container.js';
import { type Feed, renderAtom } from './atom.js';
import { feedReader } from './credentials.js';
import { feedEntry, projectTitle } from './entry.js';

export const ATOM_TYPE = 'application/atom+xml; charset=utf-8';
const ENTRIES = 20;
/** GitLab nests groups 20 deep: a project path has at most 21 segments. */
const MAX_PATH_SEGMENTS = 21;

type ParamsRequest = FastifyRequest<{ Params: Record<string, string> }>;

function problemText(problem: Problem): string {
  if (problem.kind === 'service') return wording(problem.error);
  if (problem.kind === 'client') {
    return problem.reason === 'rate_limited' ? '429 Too Many Requests' : `${problem.status} Error`;
  }
  if (problem.kind === 'unavailable') return '503 Service Unavailable';
  return '500 Internal Server Error';
}

/** One wording per error code, as plain text (feed readers show it, nobody parses it). */
function wording(error: ServiceError): string {
  switch (error.code) {
    case 'UNAUTHENTICATED':
    case 'INVALID_TOKEN':
      return '401 Unauthorized';
    case 'INSUFFICIENT_SCOPE':
    case 'FORBIDDEN':
      return '403 Forbidden';
    case 'NOT_FOUND':
      return '404 Not Found';
    case 'BAD_USER_INPUT':
    case 'INVALID_REQUEST':
    case 'INVALID_RECORD':
    case 'OAUTH':
      return '400 Bad Request';
    case 'THROTTLED':
      return '429 Too Many Requests';
    case 'OAUTH_CLIENT':
    case 'OAUTH_FORBIDDEN':
    case 'NOT_ALLOWED':
    case 'CONFLICT':
    case 'UNPROCESSABLE':
      return `${error.status} Error`;
  }
}

export function atomFeeds(services: Services, revision: string) {
  const { activity, config } = services;

  return async function plugin(app: FastifyInstance): Promise<void> {
    app.setErrorHandler(
      errorHandler('feeds', (problem, reply) =>
        reply
          .code(problem.status)
          .header('content-type', 'text/plain; charset=utf-8')
          .send(`${problemText(problem)}\n`),
      ),
    );

    /** Authenticate, describe the feed (its source found once), one call, render. */
    async function serve(
      request: FastifyRequest,
      reply: FastifyReply,
      describe: (reader: Awaited<ReturnType<typeof feedReader>>) => Promise<{
        source: ActivitySource;
        feed: Omit<Feed, 'entries' | 'updated' | 'self'> & { created: number };
      }>,
    ) {
      const base = config.externalUrl;
      const reader = await feedReader(services, request, reply);
      const viewer = reader?.viewer ?? null;
      const { source, feed } = await describe(reader);
      const answer = await activity.read({
        source,
        filter: { sort: 'desc' },
        page: { page: 1, perPage: ENTRIES },
        viewer,
        validators: validators(request, { kind: 'atom', revision, viewer }),
      });
      return send(request, reply, answer, (page) => {
        const entries = page.events.map((event) => feedEntry(event, base));
        reply.header('content-type', ATOM_TYPE);
        return renderAtom({
          ...feed,
          // The feed's own address, without the query (and so without credentials).
          self: `${base}${request.url.split('?')[0]!}`,
          updated: entries[0]?.updated ?? feed.created,
          entries,
        });
      });
    }

    // The dashboard's three tabs (web/dashboard-scopes.ts), with the same credentials.
    const dashboards = [
      { scope: 'all', feed: 'projects', title: 'Activity', page: '/dashboard/activity' },
      {
        scope: 'starred',
        feed: 'starred',
        title: 'Starred projects activity',
        page: '/dashboard/activity/starred',
      },
      {
        scope: 'followed',
        feed: 'followed',
        title: 'Followed users activity',
        page: '/dashboard/activity/followed',
      },
    ] as const;
    for (const dashboard of dashboards) {
      app.get(`/dashboard/${dashboard.feed}.atom`, (request, reply) =>
        serve(request, reply, async (reader) => {
          if (!reader) throw new UnauthenticatedError();
          const base = config.externalUrl;
          return {
            source: { kind: 'viewer', scope: dashboard.scope },
            feed: {
              id: `${base}/dashboard/${dashboard.feed}`,
              title: dashboard.title,
              // The page it is the feed of (the id keeps GitLab's path: readers know the feed by it).
              alternate: `${base}${dashboard.page}`,
              created: reader.user.createdAt,
            },
          };
        }),
      );
    }

    app.get('/:username.atom', (request: ParamsRequest, reply) =>
      serve(request, reply, async () => {
        const user = await activity.findUser(request.params.username!);
        const page = userWebUrl(config.externalUrl, user);
        return {
          source: { kind: 'user', user },
          feed: {
            id: page,
            title: `${user.username} activity`,
            alternate: page,
            created: user.createdAt,
          },
        };
      }),
    );

    for (let depth = 2; depth <= MAX_PATH_SEGMENTS; depth++) {
      const names = Array.from({ length: depth }, (_, i) => `s${i}`);
      const route = `/${names.map((n) => `:${n}`).join('/')}.atom`;
      app.get(route, (request: ParamsRequest, reply) =>
        serve(request, reply, async (reader) => {
          const fullPath = names.map((n) => request.params[n]!).join('/');
          const viewer = reader?.viewer ?? null;
          const found = await activity.findProject(fullPath, viewer);
          const { project } = found;
          const page = projectWebUrl(config.externalUrl, project);
          return {
            source: { kind: 'project', project: found },
            feed: {
              id: page,
              title: `${projectTitle(project.fullPath)} activity`,
              alternate: page,
              created: project.createdAt,
            },
          };
        }),
      );
    }
  };
}
