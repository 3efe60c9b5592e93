/**
 * What the authorization page does before consent: sign the user in when nobody is, or again when
 * `prompt=login` or `max_age` asks (signing out first, as GitLab does); answer `prompt=none`
 * without any page — a code when consent was given before, else `login_required` or
 * `consent_required` to the client with `state` and `iss`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OAUTH_DESCRIPTIONS } from '../domain/oauth.js';
import { afterReauthentication, decidePrompt } from '../domain/oidc-prompt.js';
import type { Services } from '../services/container.js';
import type { AuthorizationRequest } from '../services/provider/authorization.js';
import { currentSession, rememberReturnTo, signedInUser } from './session.js';

type Respond = (
  reply: FastifyReply,
  uri: string,
  params: Record<string, string | undefined>,
) => FastifyReply;

/** The reply when the prompt rules decided; null to go on to the consent page. */
export async function applyPrompt(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  authz: AuthorizationRequest,
  respond: Respond,
): Promise<FastifyReply | null> {
  const { sessions, consent, authorization } = services.oauth;
  const session = await currentSession(services, request);
  const user = await signedInUser(services, session);
  const signedIn = session !== null && user !== null;
  const consented =
    signedIn && authz.prompt.includes('none')
      ? await consent.given(user.id, authz.app.id, authz.scopes)
      : false;
  const outcome = decidePrompt(authz, {
    authTime: signedIn ? session.signedInAt : null,
    now: services.clock.now(),
    consented,
  });
  switch (outcome.kind) {
    case 'consent':
      return null;
    case 'error':
      return respond(reply, authz.redirectUri, {
        error: outcome.error,
        error_description: OAUTH_DESCRIPTIONS[outcome.error],
        state: authz.state,
      });
    case 'approve': {
      const code = await authorization.issueCode(user!.id, authz, session!.signedInAt);
      return respond(reply, authz.redirectUri, { code, state: authz.state });
    }
    case 'sign_in': {
      // Back here afterwards, minus what the fresh sign-in satisfies (else it would loop).
      const query = new URLSearchParams(request.url.slice(request.url.indexOf('?') + 1));
      const returnTo = `/oauth/authorize?${afterReauthentication(query)}`;
      if (session) await sessions.destroy(session);
      rememberReturnTo(request, reply, services.config, returnTo);
      return reply.redirect('/users/sign_in', 302);
    }
  }
}
