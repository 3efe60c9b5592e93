/**
 * The content read routes: anonymous callers read public projects, read scopes suffice; one
 * object answered 200, or a page of a list with GitLab's pagination headers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TProperties } from '@sinclair/typebox';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import type { ContentOps } from '../services/content/ops.js';
import type { Services } from '../services/container.js';
import { authenticate } from '../http/credentials.js';
import { sendJson } from '../http/json.js';
import type { Params } from './body.js';
import { type PAGE_PARAMS, actorOf, pageOf, params, sendPage } from './writes.js';

/** Content reads: anonymous callers read public projects; read scopes suffice. */
export async function reader(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<ContentOps> {
  const principal = await authenticate(services, request, reply, ENDPOINT_SCOPES.project, false);
  return services.content.reading(principal ? actorOf(principal) : null);
}

/**
 * A content list route: read as `reader` reads, the declared parameters (`PAGE_PARAMS` among
 * them, where the declaration puts them), and the page `list` finds, already presented.
 */
export function listRoute<P extends TProperties>(
  services: Services,
  properties: P,
  list: (
    ops: ContentOps,
    p: Params<P>,
    page: ReturnType<typeof pageOf>,
  ) => Promise<{ items: unknown[]; total: number }>,
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const ops = await reader(services, request, reply);
    const p = params(request, properties);
    const page = pageOf(p as Params<typeof PAGE_PARAMS>);
    return sendPage(services, request, reply, page, await list(ops, p, page), (item) => item);
  };
}

/** A content route that reads one object: read as `reader` reads, answered 200 with `read`'s body. */
export function readRoute<P extends TProperties>(
  services: Services,
  properties: P,
  read: (ops: ContentOps, p: Params<P>) => Promise<unknown>,
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const ops = await reader(services, request, reply);
    return sendJson(reply, 200, await read(ops, params(request, properties)));
  };
}
