/** Project members (lib/api/members.rb): list, get, add, remove. */
import type { FastifyInstance } from 'fastify';
import { ACCESS_LEVEL_VALUES } from '../domain/vocabulary.js';
import type { Services } from '../services/container.js';
import { int, str } from './body.js';
import { day, integer, nullable, required, values } from './params.js';
import { presentMember } from './entities.js';
import { listRoute, readRoute } from './reads.js';
import { PAGE_PARAMS, PROJECT, params, write } from './writes.js';

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

  // `/members/all` lists inherited members too; pulsegate has no groups, so it is the same list.
  for (const path of ['/projects/:id/members', '/projects/:id/members/all']) {
    app.get(
      path,
      listRoute(services, { ...PROJECT, ...PAGE_PARAMS }, async (ops, p, page) => {
        const list = await ops.members.list(str(p.id)!, page);
        return { items: list.members.map(present), total: list.total };
      }),
    );
  }

  app.get(
    '/projects/:id/members/:user_id',
    readRoute(services, MEMBER, async (ops, p) =>
      present(await ops.members.get(str(p.id)!, int(p.user_id)!)),
    ),
  );

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
