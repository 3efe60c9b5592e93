/**
 * The page budget: `config.pageRateLimit` requests per minute per client address for every HTML
 * page (sign-in, profile, the authorization and consent page), so nobody drives the pages' work
 * (password checks, session and code writes) at will. Over budget: an HTML 429 with an integer
 * `Retry-After`. Counted in the shared request budget (http/rate-limit.ts), so every process over
 * one database spends the same page budget.
 */
import type {} from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { errorPage, sendHtml } from './html.js';

const WINDOW_MS = 60_000;

export function limitPages(
  pages: FastifyInstance,
  config: Config,
  /** Requests that are not pages (paths the catch-all page routes hand to the not-found handler). */
  skip: (url: string) => boolean = () => false,
): void {
  if (config.pageRateLimit <= 0) return;
  const check = pages.createRateLimit({
    max: config.pageRateLimit,
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => `page:${request.ip}`,
  });
  pages.addHook('onRequest', async (request, reply) => {
    if (skip(request.url)) return;
    const outcome = await check(request);
    if (outcome.isAllowed || !outcome.isExceeded) return;
    const seconds = Math.max(1, outcome.ttlInSeconds);
    reply.header('retry-after', String(seconds));
    return sendHtml(
      reply,
      429,
      errorPage(
        'Too many requests',
        `Too many pages were requested from your address. Try again in ${seconds} seconds.`,
      ),
    );
  });
}
