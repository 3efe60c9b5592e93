/**
 * `/oauth/authorize`: validation (errors about the client or its redirect URI are shown here and
 * never redirected), sign-in when needed, the consent page, and the decision. Every authorization
 * response carries `iss` (RFC 9207). No CORS here, ever (RFC 9700 §2.6).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { withResponseParams } from '../domain/redirect-uri.js';
import { readParams } from '../http/params.js';
import type { Services } from '../services/container.js';
import type {
  AuthorizationRequest,
  AuthorizationValidation,
} from '../services/provider/authorization.js';
import type { ActiveSession } from '../services/accounts/sessions.js';
import type { UserView } from '../services/views.js';
import { applyPrompt } from './authorize-prompt.js';
import { SCOPE_DESCRIPTIONS } from './scope-choices.js';
import { pageContext } from './guard.js';
import { type Html, csrfField, errorPage, html, layout, sendHtml } from './html.js';
import { formValue, signedIn } from './session.js';

const FORM_FIELDS = new Set(['authenticity_token', 'decision']);

function consentPurpose(services: Services, request: AuthorizationRequest): string {
  return `authorize:${services.oauth.authorization.fingerprint(request)}`;
}

function consentPage(
  services: Services,
  session: ActiveSession,
  user: UserView,
  request: AuthorizationRequest,
  ownerName: string,
) {
  const csrf = services.oauth.sessions.csrfToken(session, consentPurpose(services, request));
  const { nav } = pageContext(services, session, user);
  const hidden = (name: string, value: string | null | undefined) =>
    value === null || value === undefined
      ? ''
      : html`<input type="hidden" name="${name}" value="${value}" />`;
  const target = new URL(request.redirectUri);
  return layout(
    `Authorize ${request.app.name}`,
    html`<section class="card narrow consent">
      <h1>Authorize <strong>${request.app.name}</strong> to use your account?</h1>
      <p>
        An application called <strong>${request.app.name}</strong> (registered by ${ownerName}) is
        requesting access to your pulsegate account <strong>${user.username}</strong>.
      </p>
      <p>It will be able to:</p>
      ${scopeList(request.scopes)}
      <p class="muted">You will be sent back to <code>${target.origin}</code>.</p>
      <form method="post" action="/oauth/authorize">
        ${csrfField(csrf)} ${hidden('client_id', request.app.uid)}
        ${hidden('redirect_uri', request.redirectUri)} ${hidden('response_type', 'code')}
        ${hidden('scope', request.scopes.join(' '))} ${hidden('state', request.state)}
        ${hidden('code_challenge', request.codeChallenge)}
        ${hidden('code_challenge_method', request.codeChallengeMethod)}
        ${hidden('nonce', request.nonce)} ${DECISION_BUTTONS}
      </form>
    </section>`,
    nav,
  );
}

export function authorizeRoutes(app: FastifyInstance, services: Services): void {
  const { authorization, sessions } = services.oauth;
  // Read per request: the external URL is fixed at start, but tests set it once the port is known.
  const issuer = () => services.config.externalUrl;

  const redirectTo = (
    reply: FastifyReply,
    uri: string,
    params: Record<string, string | undefined>,
  ) => {
    reply.header('cache-control', 'no-store');
    reply.header('referrer-policy', 'no-referrer');
    return reply.redirect(withResponseParams(uri, { ...params, iss: issuer() }), 302);
  };

  const validate = async (source: unknown) => {
    const params = readParams(source);
    for (const name of FORM_FIELDS) {
      params.doubled.delete(name);
      delete params.values[name];
    }
    return authorization.validate(params.values, params.doubled);
  };

  /** An invalid request: an error page when the client cannot be trusted, else back to it. */
  const refuse = (reply: FastifyReply, result: Exclude<AuthorizationValidation, { kind: 'ok' }>) =>
    result.kind === 'fatal'
      ? sendHtml(reply, 400, errorPage('An error has occurred', result.description))
      : redirectTo(reply, result.redirectUri, {
          error: result.error,
          error_description: result.description,
          state: result.state,
        });

  app.get('/oauth/authorize', async (request, reply) => {
    const result = await validate(request.query);
    if (result.kind !== 'ok') return refuse(reply, result);
    const signed = await signedIn(services, request);
    // Sign-in (again) when needed, and OIDC's prompt / max_age.
    const prompted = await applyPrompt(services, request, reply, result.request, redirectTo);
    if (prompted || !signed) return prompted;
    const owner = await services.oauth.accounts.username(result.request.app.ownerId);
    return sendHtml(
      reply,
      200,
      consentPage(services, signed.session, signed.user, result.request, owner ?? 'unknown'),
    );
  });

  app.post('/oauth/authorize', async (request, reply) => {
    const signed = await signedIn(services, request);
    if (!signed) {
      return sendHtml(
        reply,
        403,
        errorPage('Session expired', 'Your session has expired. Start again from the application.'),
      );
    }
    const { session, user } = signed;
    const result = await validate(request.body);
    if (result.kind !== 'ok') return refuse(reply, result);
    const token = formValue(request.body, 'authenticity_token');
    if (!sessions.verifyCsrf(session, consentPurpose(services, result.request), token)) {
      return sendHtml(
        reply,
        403,
        errorPage('Request refused', 'This authorization form is not valid for this request.'),
      );
    }
    const { request: authz } = result;
    if (formValue(request.body, 'decision') !== 'approve') {
      return redirectTo(reply, authz.redirectUri, {
        error: 'access_denied',
        error_description: 'The resource owner or authorization server denied the request.',
        state: authz.state,
      });
    }
    const code = await authorization.issueCode(user.id, authz, session.signedInAt);
    return redirectTo(reply, authz.redirectUri, { code, state: authz.state });
  });
}

/** What each requested scope lets the application do, as the consent pages list it. */
export function scopeList(scopes: readonly string[]): Html {
  return html`<ul class="scopes">
    ${scopes.map((s) => html`<li><code>${s}</code> — ${SCOPE_DESCRIPTIONS[s] ?? s}</li>`)}
  </ul>`;
}

/** Approve or deny, as every consent form asks (clients and tests find `button[name=decision]`). */
export const DECISION_BUTTONS = html`<div class="actions">
  <button type="submit" name="decision" value="approve" class="primary">Authorize</button>
  <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>`;
