/**
 * Reads token-like values off an HTTP request, in GitLab's places, for every face that takes API
 * credentials (REST and GraphQL), and asks the credential service about them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { UnauthenticatedError } from '../domain/errors.js';
import type { Scope } from '../domain/scopes.js';
import type { Principal, PresentedCredentials } from '../services/accounts/credentials.js';
import type { Services } from '../services/container.js';

const BEARER = /^Bearer\s+(.+)$/i;

function single(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  // A repeated parameter is never a valid token; pass something that matches none.
  return JSON.stringify(value);
}

export function presentedCredentials(request: FastifyRequest): PresentedCredentials {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const authorization = request.headers.authorization;
  const bearer =
    typeof authorization === 'string' ? BEARER.exec(authorization)?.[1]?.trim() : undefined;
  return {
    privateTokenHeader: single(request.headers['private-token']),
    privateTokenParam: single(query.private_token),
    bearerHeader: bearer,
    accessTokenParam: single(query.access_token),
  };
}

const principals = new WeakMap<FastifyRequest, Promise<Principal | null>>();

/**
 * The request's principal (null when anonymous), or the authentication error; verified once per
 * request however many hooks and handlers ask (the rate limiter asks first).
 */
export function principalOf(
  services: Services,
  request: FastifyRequest,
): Promise<Principal | null> {
  let principal = principals.get(request);
  if (!principal) {
    principal = services.credentials.authenticate(presentedCredentials(request));
    principals.set(request, principal);
  }
  return principal;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Authenticates and checks scopes. Tokens in the query string make the response uncacheable
 * (RFC 6750 §2.3).
 */
export async function authenticate(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  accepted: readonly Scope[],
  required: boolean,
): Promise<Principal | null> {
  const presented = presentedCredentials(request);
  if (presented.accessTokenParam !== undefined || presented.privateTokenParam !== undefined) {
    reply.header('cache-control', 'no-store');
  }
  const principal = await principalOf(services, request);
  if (!principal && required) throw new UnauthenticatedError();
  services.credentials.authorize(principal, accepted, SAFE_METHODS.has(request.method));
  return principal;
}
