/**
 * Who reads a feed: a `feed_token` (read access to feeds only; GitLab's per-user token), else a
 * token as the API takes it (`?private_token=`, `PRIVATE-TOKEN`, …) with a read scope, else
 * nobody (public activity). A presented feed token that does not verify is a 401, never a silent
 * fall back to the public feed.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { UnauthenticatedError } from '../domain/errors.js';
import { ENDPOINT_SCOPES } from '../domain/scopes.js';
import { type Viewer, viewerOf } from '../domain/visibility.js';
import type { Services } from '../services/container.js';
import type { UserView } from '../services/views.js';
import { authenticate, markCredentialInUrl } from '../http/credentials.js';

export interface FeedReader {
  user: UserView;
  viewer: Viewer;
}

export async function feedReader(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FeedReader | null> {
  const feedToken = (request.query as Record<string, unknown> | undefined)?.feed_token;
  if (feedToken !== undefined) {
    // A secret in the URL: no cache may keep the answer (RFC 6750 §2.3's reasoning).
    markCredentialInUrl(reply);
    const user =
      typeof feedToken === 'string' ? await services.feedTokens.authenticate(feedToken) : null;
    if (!user) throw new UnauthenticatedError();
    return { user, viewer: viewerOf(user) };
  }
  const principal = await authenticate(services, request, reply, ENDPOINT_SCOPES.user, false);
  return principal && { user: principal.user, viewer: principal.viewer };
}
