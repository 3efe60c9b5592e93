/**
 * The HTML face: sign-in, profile pages (applications, tokens, two-factor) and the OAuth
 * authorization/consent page, plus the one stylesheet. Every page goes out through sendHtml.
 */
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { errorHandler } from '../http/errors.js';
import { sessionRequests } from './session.js';
import type { Services } from '../services/container.js';
import { activityPathRoutes, activityRoutes, isReservedPath } from './activity.js';
import { applicationRoutes } from './applications.js';
import { authorizeRoutes } from './authorize.js';
import { deviceRoutes } from './device.js';
import { feedTokenRoutes } from './feed-token.js';
import { formGuard } from './guard.js';
import { homeRoutes } from './home.js';
import { hookPages } from './hooks.js';
import { errorPage, sendHtml } from './html.js';
import { limitPages } from './page-limit.js';
import { signInRoutes } from './sign-in.js';
import { socialRoutes } from './social.js';
import { tokenRoutes } from './tokens.js';
import { twoFactorRoutes } from './two-factor.js';

/** Beside this module in src/ and in dist/ (scripts/build.mjs copies non-TypeScript files). */
const ASSETS = new URL('./assets/', import.meta.url);

export function webPages(services: Services) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.setErrorHandler(
      errorHandler('web', (problem, reply) =>
        problem.status < 500
          ? sendHtml(
              reply,
              problem.status,
              errorPage('Bad request', 'The request could not be processed.'),
            )
          : problem.kind === 'unavailable'
            ? sendHtml(
                reply,
                503,
                errorPage(
                  'Temporarily unavailable',
                  'The service cannot reach its database right now. Please try again in a few seconds.',
                ),
              )
            : sendHtml(reply, 500, errorPage('Something went wrong', 'Please try again later.')),
      ),
    );
    await app.register(fastifyCookie, { secret: await services.oauth.sessions.cookieSecret() });
    sessionRequests(app);

    // One route per file found at start (no wildcard): nothing else under /assets/ resolves. The
    // stylesheet is outside the page budget: every page loads it, and it costs no database work.
    await app.register(fastifyStatic, {
      root: ASSETS,
      prefix: '/assets/',
      wildcard: false,
      index: false,
      decorateReply: false,
      maxAge: 3600_000,
      setHeaders: (res) => res.setHeader('x-content-type-options', 'nosniff'),
    });

    await app.register(async (pages) => {
      limitPages(pages, services.config);
      pages.addHook('preHandler', formGuard(services));
      pages.get('/profile', async (_request, reply) =>
        reply.redirect('/profile/applications', 303),
      );
      homeRoutes(pages, services);
      signInRoutes(pages, services);
      authorizeRoutes(pages, services);
      deviceRoutes(pages, services);
      applicationRoutes(pages, services);
      tokenRoutes(pages, services);
      feedTokenRoutes(pages, services);
      twoFactorRoutes(pages, services);
      activityRoutes(pages, services);
      hookPages(pages, services);
      socialRoutes(pages, services);
    });
    // The activity pages own the paths of users and projects (`/alice`, `/acme/platform/api`), so
    // their routes catch every path of that shape; those under another part of the server
    // (`/api/…`, `/oauth/…`) go on to the not-found handler without spending the page budget.
    await app.register(async (paths) => {
      limitPages(paths, services.config, isReservedPath);
      activityPathRoutes(paths, services);
    });
  };
}
