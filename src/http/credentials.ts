/**
 * Reads token-like values off an HTTP request, in GitLab's places, for every face that takes API
 * credentials (REST and GraphQL), and asks the credential service about them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UnauthenticatedError } from '../domain/errors.js';
import type { Scope } from '../domain/scopes.js';
import { viewerOf } from '../domain/visibility.js';
import { SESSION_COOKIE } from '../services/accounts/sessions.js';
import { readsAsOfArrival } from './read-context.js';
import type { Principal, PresentedCredentials } from '../services/accounts/credentials.js';
import type { Services } from '../services/container.js';

const BEARER = /^Bearer\s+(.+)$/i;

/** What the session path reads of a request: its headers (an HTTP request or a socket's upgrade). */
type WithHeaders = { headers: IncomingHttpHeaders };

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
 * The browser session path (GraphiQL): the session cookie counts only beside this header holding
 * the session's CSRF token for SESSION_CSRF_PURPOSE. A cross-site page cannot read the token (it
 * is only in the same-origin GraphiQL page) and cannot set the header without a CORS preflight,
 * which is never granted; the cookie alone authenticates nothing.
 */
export const SESSION_CSRF_HEADER = 'x-csrf-token';
export const SESSION_CSRF_PURPOSE = 'graphql';
/** CSRF purpose of the pages' forms (web/session.ts), here for GraphiQL's sign-out button. */
export const FORM_CSRF_PURPOSE = 'form';
/** Scopes of a browser session on GraphQL: reading, as the signed-in user. */
const SESSION_SCOPES: readonly Scope[] = ['read_api'];

/** Requests of routes that take a browser session (marked by acceptBrowserSessions). */
const sessionRoutes = new WeakSet<FastifyRequest>();

/** Lets this plugin's routes authenticate a signed-in browser session with its CSRF header. */
export function acceptBrowserSessions(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    sessionRoutes.add(request);
  });
}

/** One cookie's value from the Cookie header (no plugin: the web face owns @fastify/cookie). */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The signed-in browser session's user and the session, or null. */
async function browserSession(services: Services, request: WithHeaders) {
  const session = await services.oauth.sessions.load(
    cookieValue(request.headers.cookie, SESSION_COOKIE),
  );
  if (!session || session.userId === null) return null;
  const user = await services.oauth.accounts.activeUser(session.userId);
  return user ? { session, user } : null;
}

/**
 * The CSRF token the GraphiQL page hands its fetcher, when the browser is signed in, and the
 * pages' form token (its sign-out button).
 */
export async function browserSessionToken(
  services: Services,
  request: FastifyRequest,
): Promise<{ token: string; username: string; formToken: string } | null> {
  const found = await browserSession(services, request);
  if (!found) return null;
  return {
    token: services.oauth.sessions.csrfToken(found.session, SESSION_CSRF_PURPOSE),
    username: found.user.username,
    formToken: services.oauth.sessions.csrfToken(found.session, FORM_CSRF_PURPOSE),
  };
}

/**
 * The session principal: only with the header, only same-origin (`Sec-Fetch-Site` when the
 * browser sends it), only with the token of this very session; otherwise 401.
 */
async function sessionPrincipal(
  services: Services,
  request: WithHeaders,
  presented: string,
): Promise<Principal> {
  const fetchSite = request.headers['sec-fetch-site'];
  if (typeof fetchSite === 'string' && fetchSite !== 'same-origin') {
    throw new UnauthenticatedError();
  }
  const found = await browserSession(services, request);
  if (
    !found ||
    !services.oauth.sessions.verifyCsrf(found.session, SESSION_CSRF_PURPOSE, presented)
  ) {
    throw new UnauthenticatedError();
  }
  return {
    user: found.user,
    viewer: viewerOf(found.user),
    scopes: SESSION_SCOPES,
    kind: 'browser_session',
    tokenId: found.session.rowId,
  };
}

function hasToken(presented: PresentedCredentials): boolean {
  return Object.values(presented).some((value) => value !== undefined && value !== '');
}

/**
 * The request's principal (null when anonymous), or the authentication error; verified once per
 * request however many hooks and handlers ask (the rate limiter asks first). A token, when one is
 * presented, decides; else, on routes that accept it, the browser session with its CSRF header.
 */
export function principalOf(
  services: Services,
  request: FastifyRequest,
): Promise<Principal | null> {
  let principal = principals.get(request);
  if (!principal) {
    const presented = presentedCredentials(request);
    const csrf = request.headers[SESSION_CSRF_HEADER];
    principal =
      !hasToken(presented) && sessionRoutes.has(request) && typeof csrf === 'string'
        ? sessionPrincipal(services, request, csrf)
        : readsAsOfArrival(services, request, () => services.credentials.authenticate(presented));
    principals.set(request, principal);
  }
  return principal;
}

/**
 * A WebSocket connection's principal (GraphQL subscriptions): a token in the `connection_init`
 * payload (`authorization: Bearer …` or `PRIVATE-TOKEN`, any case) or else on the upgrade request's
 * headers decides, as for HTTP; without one, the session cookie of the upgrade request counts only
 * with the session's CSRF token in the payload (`x-csrf-token`), exactly as GraphiQL's requests
 * (a browser cannot set headers on a WebSocket, so the payload carries it). Null: anonymous.
 */
export function socketPrincipal(
  services: Services,
  upgrade: WithHeaders,
  payload: Readonly<Record<string, unknown>> | undefined,
): Promise<Principal | null> {
  const params = new Map<string, unknown>();
  for (const [key, value] of Object.entries(payload ?? {})) params.set(key.toLowerCase(), value);
  const text = (value: unknown) => (value === undefined ? undefined : single(value));
  const bearerOf = (value: string | undefined) =>
    value ? BEARER.exec(value)?.[1]?.trim() : undefined;
  let presented: PresentedCredentials = {
    privateTokenHeader: text(params.get('private-token')),
    bearerHeader: bearerOf(text(params.get('authorization'))),
  };
  if (!hasToken(presented)) {
    const authorization = upgrade.headers.authorization;
    presented = {
      privateTokenHeader: single(upgrade.headers['private-token']),
      bearerHeader: bearerOf(typeof authorization === 'string' ? authorization : undefined),
    };
  }
  const csrf = params.get(SESSION_CSRF_HEADER);
  if (!hasToken(presented) && typeof csrf === 'string') {
    return sessionPrincipal(services, upgrade, csrf);
  }
  return services.credentials.authenticate(presented);
}

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Marks a response whose URL carries a credential (a token read from the query string): no cache
 * may keep it (RFC 6750 §2.3). Every face that reads such a credential marks the response before
 * anything is built from the URL.
 */
export function markCredentialInUrl(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
}

/**
 * Whether the response's URL carries a credential (it was marked): then nothing built from the URL
 * is kept in memory either (pagination headers, version tags, kept responses), so no secret
 * outlives its request.
 */
export function urlCarriesCredential(reply: FastifyReply): boolean {
  return reply.getHeader('cache-control') === 'no-store';
}

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
    markCredentialInUrl(reply);
  }
  const principal = await principalOf(services, request);
  if (!principal && required) throw new UnauthenticatedError();
  services.credentials.authorize(principal, accepted, SAFE_METHODS.has(request.method));
  return principal;
}
