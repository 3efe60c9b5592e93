/**
 * The API budget, shared by REST and GraphQL: `config.rateLimit` requests per minute per token
 * (digested, never kept in clear) or, for anonymous calls, per address. A 429 carries an integer
 * `Retry-After` (set by @fastify/rate-limit); each face words the body in its own shape.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { digest } from '../domain/secrets.js';

export function limitRequests(
  api: FastifyInstance,
  config: Config,
  body: (max: number) => object,
): void {
  if (config.rateLimit <= 0) return;
  api.addHook(
    'onRequest',
    api.rateLimit({
      max: config.rateLimit,
      timeWindow: 60_000,
      keyGenerator: (request) => {
        const token = request.headers['private-token'] ?? request.headers.authorization;
        return typeof token === 'string' ? `t:${digest(token)}` : `ip:${request.ip}`;
      },
      errorResponseBuilder: (_request, context) => ({ statusCode: 429, ...body(context.max) }),
    }),
  );
}

export const RATE_LIMIT_TEXT = (max: number) =>
  `Rate limit exceeded: ${max} requests per minute. Retry later.`;
