/** Who is looking at a page, and the checks every form submission passes. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { nullByteParams } from '../domain/content-rules.js';
import type { Services } from '../services/container.js';
import type { ActiveSession } from '../services/accounts/sessions.js';
import type { UserView } from '../services/views.js';
import { type Nav, errorPage, sendHtml } from './html.js';
import {
  FORM_PURPOSE,
  currentVisit,
  formValue,
  isCrossSite,
  rememberReturnTo,
  signedIn,
} from './session.js';

export interface PageContext {
  session: ActiveSession;
  user: UserView;
  nav: Nav;
  csrf: string;
}

/** The signed-in user, or a redirect to the sign-in page (coming back here after a GET). */
export async function requireUser(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<PageContext | null> {
  const signed = await signedIn(services, request);
  if (!signed) {
    if (request.method === 'GET') rememberReturnTo(request, reply, services.config, request.url);
    await reply.redirect('/users/sign_in', 303);
    return null;
  }
  return pageContext(services, signed.session, signed.user);
}

export function pageContext(
  services: Services,
  session: ActiveSession,
  user: UserView,
): PageContext {
  const csrf = services.oauth.sessions.csrfToken(session, FORM_PURPOSE);
  return { session, user, csrf, nav: { username: user.username, csrf } };
}

/**
 * Every POST: refused when cross-site, and — except the consent form, whose token is bound to its
 * authorization request — without this session's form token.
 */
export function formGuard(services: Services) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.method !== 'POST') return;
    if (isCrossSite(request, services.config.externalUrl)) {
      await sendHtml(
        reply,
        403,
        errorPage('Request refused', 'Cross-site form submissions are not accepted.'),
      );
      return;
    }
    if (request.routeOptions.url === '/oauth/authorize') return;
    const visit = await currentVisit(services, request);
    const token = formValue(request.body, 'authenticity_token');
    if (!visit || !services.oauth.sessions.verifyCsrf(visit, FORM_PURPOSE, token)) {
      await sendHtml(
        reply,
        403,
        errorPage('Form expired', 'This form has expired. Go back, reload the page and try again.'),
      );
      return;
    }
    // As every API write: no text column stores a NUL, so a form holding one is refused whole.
    if (nullByteParams(request.body).length > 0) {
      await sendHtml(
        reply,
        400,
        errorPage('Bad request', 'A field holds a NUL character, which no text may contain.'),
      );
    }
  };
}

/**
 * A route of a signed-in user's page or form (`requireUser`): anyone else is sent to sign in, and
 * `handle` runs with the user's page context.
 */
export function forUser<R>(
  services: Services,
  handle: (ctx: PageContext, request: FastifyRequest, reply: FastifyReply) => Promise<R>,
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<R | FastifyReply> => {
    const ctx = await requireUser(services, request, reply);
    return ctx ? handle(ctx, request, reply) : reply;
  };
}
