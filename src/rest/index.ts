/** The GitLab-compatible REST face under `/api/v4`. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import { restErrorHandler } from './errors.js';
import { eventRoutes } from './events.js';
import { sendJson } from './respond.js';
import { userRoutes } from './users.js';

export function restApi(services: Services, revision: string) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.setErrorHandler(restErrorHandler);
    app.setNotFoundHandler((_request, reply) => sendJson(reply, 404, { error: '404 Not Found' }));
    eventRoutes(app, services);
    userRoutes(app, services, revision);
  };
}
