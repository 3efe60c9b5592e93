/**
 * The API budget, one for REST and GraphQL together: `config.rateLimit` requests per minute per
 * authenticated user or, for every other request (anonymous, or with credentials that do not
 * verify), per address. The key is chosen after the credentials are verified, so made-up
 * `Authorization` or token values buy no extra requests. Counts live in the database (the
 * RequestBudget service), so every process over it spends the same budget. @fastify/rate-limit
 * sets the `X-RateLimit-*` headers and the integer `Retry-After`; each face words the 429 body.
 */
import rateLimit, {
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services/container.js';
import type { RequestBudget } from '../services/accounts/request-budget.js';
import { principalOf } from './credentials.js';
import { isWarmUp } from './warm-up.js';

const WINDOW_MS = 60_000;

/** @fastify/rate-limit's store interface over the shared budget (one for every route). */
function sharedStore(budget: RequestBudget): FastifyRateLimitStoreCtor {
  return class SharedBudgetStore implements FastifyRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number = WINDOW_MS,
    ): void {
      budget.spend(key, timeWindow).then(
        ({ count, resetInMs }) => callback(null, { current: count, ttl: resetInMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * Registers the limiter once on the root, over the shared budget; `limitRequests` then applies
 * it to the API faces and the web face applies its page budget (web/page-limit.ts).
 */
export async function registerRateLimit(app: FastifyInstance, services: Services): Promise<void> {
  app.decorateRequest('budgetKey', null);
  const { rateLimit: apiLimit, pageRateLimit } = services.config;
  if (apiLimit <= 0 && pageRateLimit <= 0) return;
  await app.register(rateLimit, {
    global: false,
    max: Math.max(apiLimit, pageRateLimit),
    timeWindow: WINDOW_MS,
    store: sharedStore(services.requestBudget),
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The budget key a limited request was counted under, until it is refunded. */
    budgetKey: string | null;
  }
}

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
      timeWindow: WINDOW_MS,
      keyGenerator: async (request) => {
        const key = await budgetKey(services, request);
        request.budgetKey = key;
        return key;
      },
      errorResponseBuilder: (_request, context) => ({ statusCode: 429, ...body(context.max) }),
      // The server's own warm-up reads before it listens (http/warm-up.ts) spend no budget: with
      // several workers over one database they would otherwise share, and exhaust, one address's.
      allowList: (request) => isWarmUp(request),
    }),
  );
}

export const RATE_LIMIT_TEXT = (max: number) =>
  `Rate limit exceeded: ${max} requests per minute. Retry later.`;

/**
 * Takes back the request's hit (once): a conditional request answered 304 costs nothing, as on
 * GitHub. The limiter counted it on arrival (it runs before any handler); giving the hit back
 * afterwards keeps one counting path, and the response's `X-RateLimit-Remaining` says what is left
 * after the refund. A caller already over the limit got its 429 before any of this.
 */
export async function refundRequest(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const key = request.budgetKey;
  if (key === null) return;
  request.budgetKey = null;
  await services.requestBudget.refund(key, WINDOW_MS);
  const remaining = Number(reply.getHeader('x-ratelimit-remaining'));
  if (Number.isFinite(remaining)) {
    reply.header('x-ratelimit-remaining', Math.min(services.config.rateLimit, remaining + 1));
  }
}
