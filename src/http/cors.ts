/**
 * CORS for the token APIs (`/api/v4/*`, `/api/graphql`): browser apps send their token in a
 * header (`Authorization` or `PRIVATE-TOKEN`), never a cookie, so credentials mode is never
 * allowed. Allowed origins are configured (`PULSEGATE_CORS_ORIGINS`, `*` by default); preflights
 * are answered before authentication and rate limiting, and cached by the browser. The OAuth
 * endpoints keep their own rules (oauth/respond.ts) and HTML pages get none.
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours). */
export const CORS_MAX_AGE = 7200;
export const CORS_ALLOWED_HEADERS = ['Authorization', 'PRIVATE-TOKEN', 'Content-Type'];
/** The pagination headers REST sends, readable by scripts. */
export const CORS_EXPOSED_HEADERS = [
  'Link',
  'X-Total',
  'X-Total-Pages',
  'X-Page',
  'X-Per-Page',
  'X-Next-Page',
  'X-Prev-Page',
  'Retry-After',
];

/**
 * Registers CORS in the calling scope (register it before the rate limiter). `applies` narrows it
 * to some URLs of the scope; preflights elsewhere are not answered (404 as before).
 */
export async function registerCors(
  scope: FastifyInstance,
  origins: readonly string[],
  methods: string[],
  applies?: (request: FastifyRequest) => boolean,
): Promise<void> {
  const options: FastifyCorsOptions = {
    origin: origins.includes('*') ? '*' : [...origins],
    credentials: false,
    methods,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE,
    strictPreflight: false,
  };
  // Without a narrowing the options are fixed, normalized once; a delegator has @fastify/cors
  // normalize what it returns on every request.
  if (!applies) {
    await scope.register(cors, options);
    return;
  }
  await scope.register(cors, {
    delegator: (request, callback) =>
      callback(null, applies(request as FastifyRequest) ? options : { origin: false }),
  });
}
