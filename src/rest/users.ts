/**
 * `GET /user` (the token's owner), `GET /version`, and the owner's calendar preferences at
 * `GET|PUT /user/preferences` (`timezone`, `include_private_contributions`).
 */
import type { FastifyInstance } from 'fastify';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import { authenticate } from '../http/credentials.js';
import { presentCurrentUser } from './present.js';
import { sendJson } from '../http/json.js';
import type { CalendarSettingsView } from '../services/accounts/calendar-settings.js';
import { params, requireOneOf } from './writes.js';
import { boolean, text } from './params.js';

/** The GitLab API level pulsegate implements; clients use it for feature detection. */
export const GITLAB_API_VERSION = '17.5.0';

export function userRoutes(app: FastifyInstance, services: Services, revision: string): void {
  app.get('/user', async (request, reply) => {
    const principal = (await authenticate(services, request, reply, ENDPOINT_SCOPES.user, true))!;
    const follows = await services.navigation.users.follows(principal.user, principal.viewer);
    return sendJson(
      reply,
      200,
      presentCurrentUser(principal.user, services.config.externalUrl, follows),
    );
  });

  app.get('/user/preferences', async (request, reply) => {
    const principal = (await authenticate(services, request, reply, ENDPOINT_SCOPES.user, true))!;
    const settings = await services.calendarSettings.get(principal.user.id);
    return sendJson(reply, 200, presentPreferences(settings));
  });

  app.put('/user/preferences', async (request, reply) => {
    const principal = (await authenticate(services, request, reply, ['api'], true))!;
    const p = params(request, { timezone: text(), include_private_contributions: boolean() });
    requireOneOf(p, ['timezone', 'include_private_contributions']);
    const settings = await services.calendarSettings.update(principal.user.id, {
      timeZone: p.timezone as string | undefined,
      includePrivateContributions: p.include_private_contributions as boolean | undefined,
    });
    return sendJson(reply, 200, presentPreferences(settings));
  });

  app.get('/version', async (request, reply) => {
    await authenticate(services, request, reply, ENDPOINT_SCOPES.user, true);
    return sendJson(reply, 200, { version: GITLAB_API_VERSION, revision, kas: { enabled: false } });
  });
}

function presentPreferences(settings: CalendarSettingsView) {
  return {
    id: settings.userId,
    user_id: settings.userId,
    timezone: settings.timeZone,
    include_private_contributions: settings.includePrivateContributions,
  };
}
