/**
 * The HTML face: sign-in, profile pages (applications, tokens, two-factor) and the OAuth
 * authorization/consent page, plus the one stylesheet. Every page goes out through sendHtml.
 */
import { readFileSync } from 'node:fs';
import type { FastifyError, FastifyInstance } from 'fastify';
import { DomainError } from '../domain/errors.js';
import type { Services } from '../services/container.js';
import { applicationRoutes } from './applications.js';
import { authorizeRoutes } from './authorize.js';
import { deviceRoutes } from './device.js';
import { formGuard } from './guard.js';
import { homeRoutes } from './home.js';
import { errorPage, sendHtml } from './html.js';
import { signInRoutes } from './sign-in.js';
import { tokenRoutes } from './tokens.js';
import { twoFactorRoutes } from './two-factor.js';

const STYLESHEET = readFileSync(new URL('./assets/style.css', import.meta.url));

export function webPages(services: Services) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const status = error instanceof DomainError ? error.status : (error.statusCode ?? 500);
      if (status >= 400 && status < 500) {
        return sendHtml(
          reply,
          status,
          errorPage('Bad request', 'The request could not be processed.'),
        );
      }
      request.log.error({ err: error }, 'unhandled error in web page');
      return sendHtml(reply, 500, errorPage('Something went wrong', 'Please try again later.'));
    });
    app.addHook('preHandler', formGuard(services));

    app.get('/assets/style.css', async (_request, reply) =>
      reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .send(STYLESHEET),
    );
    app.get('/profile', async (_request, reply) => reply.redirect('/profile/applications', 303));
    homeRoutes(app, services);
    signInRoutes(app, services);
    authorizeRoutes(app, services);
    deviceRoutes(app, services);
    applicationRoutes(app, services);
    tokenRoutes(app, services);
    twoFactorRoutes(app, services);
  };
}
