/** Project members (lib/api/members.rb): list, get, add, remove. */
import type { FastifyInstance } from 'fastify';
import { ACCESS_LEVEL_VALUES } from '../domain/vocabulary.js';
import type { Services } from '../services/container.js';
import { int, str } from './body.js';
import { day, integer, nullable, required, text, values } from './params.js';
import { presentMember } from './entities.js';
import { sendJson } from '../http/json.js';
import { PAGE_PARAMS, pageOf, params, reader, sendPage, write } from './writes.js';

const PROJECT = { id: required(text()) } as const;
const MEMBER = { ...PROJECT, user_id: required(integer()) } as const;
const NEW_MEMBER = {
  ...MEMBER,
  access_level: required(values(ACCESS_LEVEL_VALUES.map(String))),
  expires_at: nullable(day()),
} as const;

export function memberRoutes(app: FastifyInstance, services: Services): void {
  // Read per request: the external URL may be settled after routes are registered.
  const url = () => services.config.externalUrl;
  const present = (m: Parameters<typeof presentMember>[0]) => presentMember(m, url());

  app.get('/projects/:id/members', async (request, reply) => {
    const ops = await reader(services, request, reply);
    const p = params(request, { ...PROJECT, ...PAGE_PARAMS });
    const page = pageOf(p);
    const list = await ops.members.list(str(p.id)!, page);
    return sendPage(
      services,
      request,
      reply,
      page,
      { items: list.members, total: list.total },
      present,
    );
  });

  // `/members/all` lists inherited members too; pulsegate has no groups, so it is the same list.
  app.get('/projects/:id/members/all', async (request, reply) => {
    const ops = await reader(services, request, reply);
    const p = params(request, { ...PROJECT, ...PAGE_PARAMS });
    const page = pageOf(p);
    const list = await ops.members.list(str(p.id)!, page);
    return sendPage(
      services,
      request,
      reply,
      page,
      { items: list.members, total: list.total },
      present,
    );
  });

  app.get('/projects/:id/members/:user_id', async (request, reply) => {
    const ops = await reader(services, request, reply);
    const p = params(request, MEMBER);
    return sendJson(reply, 200, present(await ops.members.get(str(p.id)!, int(p.user_id)!)));
  });

  app.post('/projects/:id/members', (request, reply) =>
    write(services, request, reply, 201, async (ops) => {
      const p = params(request, NEW_MEMBER);
      const member = await ops.members.add(str(p.id)!, {
        userId: int(p.user_id)!,
        accessLevel: Number(p.access_level),
        expiresAt: typeof p.expires_at === 'string' ? p.expires_at : null,
      });
      return present(member);
    }),
  );

  app.delete('/projects/:id/members/:user_id', (request, reply) =>
    write(services, request, reply, 204, async (ops) => {
      const p = params(request, MEMBER);
      await ops.members.remove(str(p.id)!, int(p.user_id)!);
    }),
  );
}
