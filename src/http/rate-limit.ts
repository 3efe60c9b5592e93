/**
 * The API budget, shared by REST and GraphQL: `config.rateLimit` requests per minute per
 * authenticated user or, for every other request (anonymous, or with credentials that do not
 * verify), per address. The key is chosen after the credentials are verified, so made-up
 * `Authorization` or token values buy no extra requests. A 429 carries an integer `Retry-After`
 * (set by @fastify/rate-limit); each face words the body in its own shape.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../services/container.js';
import { principalOf } from './credentials.js';

/** Whose budget a request spends: its verified user, else its address. */
async function budgetKey(services: Services, request: FastifyRequest): Promise<string> {
  try {
    const principal = await principalOf(services, request);
    if (principal) return `user:${principal.user.id}`;
  } catch {
    // Credentials that do not verify: the handler answers 401/403; the address pays.
  }
  return `ip:${request.ip}`;
}

export function limitRequests(
  api: FastifyInstance,
  services: Services,
  body: (max: number) => object,
): void {
  const { config } = services;
  if (config.rateLimit <= 0) return;
  api.addHook(
    'onRequest',
    api.rateLimit({
      max: config.rateLimit,
      timeWindow: 60_000,
      keyGenerator: (request) => budgetKey(services, request),
      errorResponseBuilder: (_request, context) => ({ statusCode: 429, ...body(context.max) }),
    }),
  );
}

export const RATE_LIMIT_TEXT = (max: number) =>
  `Rate limit exceeded: ${max} requests per minute. Retry later.`;
