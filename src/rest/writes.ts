/**
 * What every REST write and content read shares: the principal as an actor, the merged and
 * declared parameters, `Idempotency-Key` retries, and list pagination headers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { offsetPageOf } from '../domain/pagination.js';
import { ENDPOINT_SCOPES, type Scope } from '../domain/scopes.js';
import type { Principal } from '../services/accounts/credentials.js';
import type { Actor, Answer } from '../services/content/content.js';
import type { ContentOps } from '../services/content/ops.js';
import type { Services } from '../services/container.js';
import type { Listed } from '../services/navigation/navigation.js';
import { authenticate } from '../http/credentials.js';
import { sendJson } from '../http/json.js';
import type { TProperties } from '@sinclair/typebox';
import { type ParamValue, type Params, mergedParams, readParams } from './body.js';
import { integer, required, text } from './params.js';
import { setPaginationHeaders } from './pagination.js';
import type { NormalizedQuery } from './query.js';

export const actorOf = (principal: Principal): Actor => ({
  user: principal.user,
  viewer: principal.viewer,
});

/** The request's parameters (query, body, then path), declared and coerced as Grape does. */
export function params<P extends TProperties>(request: FastifyRequest, properties: P): Params<P> {
  return readParams(
    mergedParams(request.query, request.body, request.params as Record<string, string>),
    properties,
  );
}

/**
 * A write: scope `api` (or the `accepted` ones), one transaction, the answer `status` with the
 * presented body. With an
 * `Idempotency-Key` header, a retry within 24 hours gets the first answer back (marked
 * `Idempotent-Replayed: true`) and writes nothing.
 */
export function write(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  work: (ops: ContentOps) => Promise<unknown>,
  accepted: readonly Scope[] = ENDPOINT_SCOPES.project,
): Promise<FastifyReply> {
  return writeAnswer(
    services,
    request,
    reply,
    async (ops) => ({ status, body: (await work(ops)) ?? null }),
    accepted,
  );
}

/**
 * `write` for a route whose status depends on what the write found (a star already there is
 * GitLab's 304 with no body): `work` answers the status and body, kept for retries as they are.
 */
export async function writeAnswer(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  work: (ops: ContentOps) => Promise<Answer>,
  accepted: readonly Scope[] = ENDPOINT_SCOPES.project,
): Promise<FastifyReply> {
  const principal = (await authenticate(services, request, reply, accepted, true))!;
  const header = request.headers['idempotency-key'];
  const idempotent =
    typeof header === 'string'
      ? {
          key: header,
          request: `${request.method} ${request.url.split('?')[0]}`,
          body: JSON.stringify([request.query ?? null, request.body ?? null]),
        }
      : null;
  const answer = await services.content.writeOnce(actorOf(principal), idempotent, work);
  if (answer.replayed) reply.header('idempotent-replayed', 'true');
  if (answer.status === 204 || answer.status === 304) return reply.code(answer.status).send();
  return sendJson(reply, answer.status, answer.body);
}

/** Grape's `at_least_one_of`: an edit that names nothing to change is refused. */
export function requireOneOf(values: Record<string, unknown>, names: readonly string[]): void {
  if (names.some((name) => values[name] !== undefined)) return;
  throw new ValidationError([
    `${names.join(', ')} are missing, at least one parameter must be provided`,
  ]);
}

/** `:id` of a project: a number or a (URL-encoded) path. */
export const PROJECT = { id: required(text()) };

/** `page`/`per_page` as declared parameters of every list. */
export const PAGE_PARAMS = {
  page: integer(),
  per_page: integer(),
};

export function pageOf(values: { page?: ParamValue; per_page?: ParamValue }) {
  const page = offsetPageOf({
    ...(typeof values.page === 'number' ? { page: String(values.page) } : {}),
    ...(typeof values.per_page === 'number' ? { per_page: String(values.per_page) } : {}),
  });
  return { ...page, offset: (page.page - 1) * page.perPage, limit: page.perPage };
}

/** A page of a list with GitLab's pagination headers. */
export function sendPage<T>(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  page: { page: number; perPage: number },
  list: { items: T[]; total: number },
  present: (item: T) => unknown,
): FastifyReply {
  setPaginationHeaders(
    reply,
    {
      page: page.page,
      perPage: page.perPage,
      total: list.total,
      hasNext: page.page * page.perPage < list.total,
      count: list.items.length,
    },
    services.config.externalUrl,
    request.url.split('?')[0]!,
    request.query as NormalizedQuery,
    {},
  );
  return sendJson(reply, 200, list.items.map(present));
}

/** An offset page of a navigation list; a list that counted nothing reads as a total of 0. */
export function sendListed<T>(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  page: { page: number; perPage: number },
  listed: Listed<T>,
  present: (item: T) => unknown,
): FastifyReply {
  return sendPage(
    services,
    request,
    reply,
    page,
    { items: listed.items, total: listed.total ?? 0 },
    present,
  );
}
