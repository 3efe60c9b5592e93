/** The GitLab-compatible REST face under `/api/v4`. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import { nullByteParams } from '../domain/content-rules.js';
import { ValidationError } from '../domain/errors.js';
import { SAFE_METHODS } from '../http/credentials.js';
import { restErrorHandler } from './errors.js';
import { grapeErrors } from './params.js';
import { normalizeQuery } from './query.js';
import { eventRoutes } from './events.js';
import { sendJson } from '../http/json.js';
import { userRoutes } from './users.js';
import { issueRoutes } from './issues.js';
import { memberRoutes } from './members.js';
import { mergeRequestRoutes } from './merge-requests.js';
import { milestoneRoutes } from './milestones.js';
import { noteRoutes } from './notes.js';
import { projectRoutes } from './projects.js';
import { hookRoutes } from './hooks.js';
import { pushRoutes } from './pushes.js';
import { userLookupRoutes } from './user-lookups.js';
import { projectListRoutes } from './project-lists.js';
import { namespaceRoutes } from './namespaces.js';
import { groupRoutes } from './groups.js';
import { trackedListRoutes } from './tracked-lists.js';
import { metadataRoutes } from './metadata.js';
import { starRoutes } from './stars.js';
import { followRoutes } from './follows.js';

export function restApi(services: Services, revision: string) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.setErrorHandler(restErrorHandler);
    app.setSchemaErrorFormatter((errors) => grapeErrors(errors));
    // Parameters are read as Rack reads them before the declared schemas check them.
    app.addHook('preValidation', (request, _reply, done) => {
      request.query = normalizeQuery(request.query);
      // Before any route reads a field: a NUL anywhere in what a write sends is a 400, never a
      // database error (reads keep their own parameter messages).
      const nul = SAFE_METHODS.has(request.method)
        ? []
        : [...nullByteParams(request.query), ...nullByteParams(request.body ?? {})];
      done(
        nul.length > 0 ? new ValidationError(nul.map((name) => `${name} is invalid`)) : undefined,
      );
    });
    app.setNotFoundHandler((_request, reply) => sendJson(reply, 404, { error: '404 Not Found' }));
    eventRoutes(app, services, revision);
    userRoutes(app, services, revision);
    projectRoutes(app, services);
    memberRoutes(app, services);
    issueRoutes(app, services);
    mergeRequestRoutes(app, services);
    milestoneRoutes(app, services);
    noteRoutes(app, services);
    hookRoutes(app, services);
    pushRoutes(app, services);
    // The reads clients use to find their way to the events (docs/navigation.md).
    userLookupRoutes(app, services);
    projectListRoutes(app, services);
    namespaceRoutes(app, services);
    groupRoutes(app, services);
    trackedListRoutes(app, services);
    metadataRoutes(app, services, revision);
    starRoutes(app, services);
    followRoutes(app, services);
  };
}
