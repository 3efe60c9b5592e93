/** `/users/sign_in` (password, then a second factor when enabled) and `/users/sign_out`. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ThrottledError } from '../domain/errors.js';
import type { Services } from '../services/container.js';
import type { ActiveSession, SessionKey } from '../services/accounts/sessions.js';
import { type Html, csrfField, html, layout, messages, sendHtml } from './html.js';
import { codeFormPage } from './code-form.js';
import {
  FORM_PURPOSE,
  clearSessionCookie,
  currentSession,
  currentVisit,
  ensureVisit,
  peekReturnTo,
  formValue,
  signedInUser,
  startVisit,
  takeReturnTo,
} from './session.js';

export const SIGN_IN_FAILED = 'Invalid login or password.';
/** Where a sign-in lands without a return path: the activity dashboard, as on GitLab. */
const HOME = '/dashboard/activity';

function signInForm(
  csrf: string,
  login: string,
  errors: string[],
  forApp: string | null = null,
): Html {
  return layout(
    'Sign in',
    html`<section class="card narrow">
      <h1>Sign in</h1>
      ${
        forApp === null
          ? ''
          : html`<p class="for-app">
              Sign in to continue to <strong>${forApp}</strong>. You will be asked to authorize it
              next.
            </p>`
      }
      ${messages(errors)}
      <form method="post" action="/users/sign_in">
        ${csrfField(csrf)}
        <label
          >Username or e-mail
          <input name="login" autocomplete="username" value="${login}" required autofocus
        /></label>
        <label
          >Password <input type="password" name="password" autocomplete="current-password" required
        /></label>
        <button type="submit" class="primary">Sign in</button>
      </form>
    </section>`,
  );
}

function otpForm(csrf: string, errors: string[]): Html {
  return codeFormPage({
    title: 'Two-factor authentication',
    lead: 'Enter the code from your authenticator app, or one of your recovery codes.',
    action: '/users/two_factor',
    csrf,
    errors,
    input: html`name="otp_attempt" inputmode="numeric" autocomplete="one-time-code"`,
    submit: 'Verify',
  });
}

/** A new session for the user; back to where the sign-in interrupted (always a local path). */
async function completeSignIn(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  previous: ActiveSession | null,
  userId: number,
) {
  const session = await services.oauth.sessions.signIn(previous, userId);
  startVisit(services, request, reply, session);
  return reply.redirect(takeReturnTo(request, reply, services.config) ?? HOME, 303);
}

function throttled(reply: FastifyReply, error: ThrottledError, page: Html) {
  reply.header('retry-after', String(error.retryAfter));
  return sendHtml(reply, 429, page);
}

export function signInRoutes(app: FastifyInstance, services: Services): void {
  const { sessions, accounts } = services.oauth;
  const csrfOf = (key: SessionKey) => sessions.csrfToken(key, FORM_PURPOSE);

  /** The application a sign-in interrupted at `/oauth/authorize` is for, by name. */
  async function signingInFor(request: FastifyRequest): Promise<string | null> {
    const path = peekReturnTo(request);
    if (path === null || !path.startsWith('/oauth/authorize?')) return null;
    const clientId = new URLSearchParams(path.slice(path.indexOf('?') + 1)).getAll('client_id');
    if (clientId.length !== 1) return null;
    return (await services.oauth.applications.viewByUid(clientId[0]!))?.name ?? null;
  }

  app.get('/users/sign_in', async (request, reply) => {
    const visit = await ensureVisit(services, request, reply);
    if (await signedInUser(services, visit.session)) return reply.redirect(HOME, 303);
    return sendHtml(reply, 200, signInForm(csrfOf(visit), '', [], await signingInFor(request)));
  });

  app.post('/users/sign_in', async (request: FastifyRequest, reply) => {
    // formGuard has checked this visit's form token: there is one.
    const visit = (await currentVisit(services, request))!;
    const login = formValue(request.body, 'login') ?? '';
    const password = formValue(request.body, 'password') ?? '';
    try {
      const result = await accounts.checkPassword(login, password, request.ip, {
        refuseTwoFactor: false,
      });
      if (result.outcome === 'invalid') {
        return sendHtml(
          reply,
          401,
          signInForm(csrfOf(visit), login, [SIGN_IN_FAILED], await signingInFor(request)),
        );
      }
      if (result.outcome === 'two_factor_required') {
        const pending = await sessions.startPending(visit.session, result.user.id);
        startVisit(services, request, reply, pending);
        return reply.redirect('/users/two_factor', 303);
      }
      return completeSignIn(services, request, reply, visit.session, result.user.id);
    } catch (error) {
      if (!(error instanceof ThrottledError)) throw error;
      return throttled(reply, error, signInForm(csrfOf(visit), login, [error.message]));
    }
  });

  app.get('/users/two_factor', async (request, reply) => {
    const session = await currentSession(services, request);
    if (!session || session.pendingUserId === null) {
      return reply.redirect('/users/sign_in', 303);
    }
    return sendHtml(reply, 200, otpForm(csrfOf(session), []));
  });

  app.post('/users/two_factor', async (request, reply) => {
    const session = await currentSession(services, request);
    const pending = session?.pendingUserId ?? null;
    const user = pending === null ? null : await accounts.activeUser(pending);
    if (!session || !user) return reply.redirect('/users/sign_in', 303);
    const code = formValue(request.body, 'otp_attempt') ?? '';
    let ok: boolean;
    try {
      ok = await accounts.checkSecondFactor(user.id, code);
    } catch (error) {
      if (!(error instanceof ThrottledError)) throw error;
      return throttled(reply, error, otpForm(csrfOf(session), [error.message]));
    }
    if (!ok) return sendHtml(reply, 401, otpForm(csrfOf(session), ['Invalid two-factor code.']));
    return completeSignIn(services, request, reply, session, user.id);
  });

  app.post('/users/sign_out', async (request, reply) => {
    const session = await currentSession(services, request);
    if (session) await sessions.destroy(session);
    clearSessionCookie(reply, services.config);
    return reply.redirect('/users/sign_in', 303);
  });
}
