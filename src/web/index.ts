/**
 * The HTML face: sign-in, profile pages (applications, tokens, two-factor) and the OAuth
 * authorization/consent page, plus the one stylesheet. Every page goes out through sendHtml.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { errorHandler } from '../http/errors.js';
import type { Services } from '../services/container.js';
import { applicationRoutes } from './applications.js';
import { authorizeRoutes } from './authorize.js';
import { formGuard } from './guard.js';
import { homeRoutes } from './home.js';
import { errorPage, sendHtml } from './html.js';
import { signInRoutes } from './sign-in.js';
import { tokenRoutes } from './tokens.js';
import { twoFactorRoutes } from './two-factor.js';

const STYLESHEET = readFileSync(new URL('./assets/style.css', import.meta.url));

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
          : sendHtml(reply, 500, errorPage('Something went wrong', 'Please try again later.')),
      ),
    );
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
    applicationRoutes(app, services);
    tokenRoutes(app, services);
    twoFactorRoutes(app, services);
  };
}
