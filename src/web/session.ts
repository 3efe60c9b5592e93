/**
 * The browser session as the web face sees it: the cookies (through @fastify/cookie: HttpOnly,
 * SameSite=Lax, Secure when the external URL is https), the signed-in user, the path to return to
 * after sign-in, and the cross-site checks every POST passes.
 *
 * Two cookies. `_pulsegate_session` holds the session id: 256 random bits, a stored session only
 * once someone signs in, before that just the key of the sign-in form's CSRF token. It is not
 * signed: it is a secret already, looked up by digest. `_pulsegate_return_to` holds the local path
 * a sign-in was interrupted at (an authorization request, a profile page); it is data the browser
 * carries for us, so it is signed with the server's cookie secret, and only sent to /users/*.
 */
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Services } from '../services/container.js';
import { FORM_CSRF_PURPOSE } from '../http/credentials.js';
import {
  type ActiveSession,
  SESSION_COOKIE,
  type SessionKey,
} from '../services/accounts/sessions.js';
import type { UserView } from '../services/views.js';

export const RETURN_TO_COOKIE = '_pulsegate_return_to';
/**
 * Longer return paths are not kept (the user lands on the default page after sign-in): the cookie
 * stays well under the 4 KB browsers accept, whatever the client put in `state`.
 */
export const RETURN_TO_MAX = 2048;
const RETURN_TO_TTL_S = 60 * 60;
/** CSRF purpose of the profile and sign-in forms (the consent form has its own, per request). */
export const FORM_PURPOSE = FORM_CSRF_PURPOSE;

function cookieOptions(config: Config): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.externalUrl.startsWith('https:'),
  };
}

export function setSessionCookie(reply: FastifyReply, config: Config, value: string): void {
  reply.setCookie(SESSION_COOKIE, value, cookieOptions(config));
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(config));
}

/** A browser: its session id, and the stored session once there is one. */
export interface Visit extends SessionKey {
  session: ActiveSession | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The browser's visit once looked up (null: no session cookie; undefined: not yet). */
    visit: Visit | null | undefined;
  }
}

/** The request's visit, on the request (once, in the web face's scope). */
export function sessionRequests(app: FastifyInstance): void {
  app.decorateRequest('visit', undefined);
}

/** The browser's visit, or null when it has no (well-formed) session cookie. */
export async function currentVisit(
  services: Services,
  request: FastifyRequest,
): Promise<Visit | null> {
  if (request.visit !== undefined) return request.visit;
  const { sessions } = services.oauth;
  const cookie = request.cookies[SESSION_COOKIE];
  const session = await sessions.load(cookie);
  const visit = session
    ? { id: session.id, session }
    : sessions.isId(cookie)
      ? { id: cookie, session: null }
      : null;
  request.visit = visit;
  return visit;
}

export async function currentSession(
  services: Services,
  request: FastifyRequest,
): Promise<ActiveSession | null> {
  return (await currentVisit(services, request))?.session ?? null;
}

/** The visit, with a new session id sent as a cookie when the browser has none. Stores nothing. */
export async function ensureVisit(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Visit> {
  const existing = await currentVisit(services, request);
  if (existing) return existing;
  const visit = { id: services.oauth.sessions.newId(), session: null };
  setSessionCookie(reply, services.config, visit.id);
  request.visit = visit;
  return visit;
}

/** After sign-in, the session replaces whatever the request came with. */
export function startVisit(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  session: ActiveSession,
): void {
  setSessionCookie(reply, services.config, session.id);
  request.visit = { id: session.id, session };
}

/** The session and its user when the visitor is signed in (and the user still active); else null. */
export async function signedIn(
  services: Services,
  request: FastifyRequest,
): Promise<{ session: ActiveSession; user: UserView } | null> {
  const session = await currentSession(services, request);
  const user = await signedInUser(services, session);
  return session && user ? { session, user } : null;
}

export async function signedInUser(
  services: Services,
  session: ActiveSession | null,
): Promise<UserView | null> {
  if (!session || session.userId === null) return null;
  return services.oauth.accounts.activeUser(session.userId);
}

function returnToOptions(config: Config): CookieSerializeOptions {
  return { ...cookieOptions(config), path: '/users' };
}

/** A path of ours: `/x`, never `//host` or `/\host` (which browsers read as another host). */
function isLocalPath(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
}

/**
 * Remembers where to come back to after sign-in, in a signed cookie. A path over RETURN_TO_MAX
 * is not kept, and any older one is dropped: after sign-in the user lands on the default page.
 */
export function rememberReturnTo(
  request: FastifyRequest,
  reply: FastifyReply,
  config: Config,
  path: string,
): void {
  if (path.length > RETURN_TO_MAX || !isLocalPath(path)) {
    if (request.cookies[RETURN_TO_COOKIE] !== undefined) {
      reply.clearCookie(RETURN_TO_COOKIE, returnToOptions(config));
    }
    return;
  }
  const value = Buffer.from(path, 'utf8').toString('base64url');
  reply.setCookie(RETURN_TO_COOKIE, value, {
    ...returnToOptions(config),
    maxAge: RETURN_TO_TTL_S,
    signed: true,
  });
}

/** The remembered path (when its signature holds), kept for later. */
export function peekReturnTo(request: FastifyRequest): string | null {
  const raw = request.cookies[RETURN_TO_COOKIE];
  if (raw === undefined) return null;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return null;
  const path = Buffer.from(unsigned.value, 'base64url').toString('utf8');
  return path.length <= RETURN_TO_MAX && isLocalPath(path) ? path : null;
}

/** The remembered path (when its signature holds), forgotten as it is read. */
export function takeReturnTo(
  request: FastifyRequest,
  reply: FastifyReply,
  config: Config,
): string | null {
  const raw = request.cookies[RETURN_TO_COOKIE];
  if (raw === undefined) return null;
  reply.clearCookie(RETURN_TO_COOKIE, returnToOptions(config));
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return null;
  const path = Buffer.from(unsigned.value, 'base64url').toString('utf8');
  return path.length <= RETURN_TO_MAX && isLocalPath(path) ? path : null;
}

/**
 * True when a state-changing request comes from another site. `Sec-Fetch-Site` decides when the
 * browser sends it (same-origin or none pass); otherwise an `Origin` that is not ours refuses.
 * `Origin: null` is not decisive: with `Referrer-Policy: no-referrer` browsers send it on our own
 * form posts. SameSite=Lax keeps the cookie off cross-site POSTs and the CSRF token still applies.
 */
export function isCrossSite(request: FastifyRequest, externalUrl: string): boolean {
  const fetchSite = request.headers['sec-fetch-site'];
  if (typeof fetchSite === 'string') return fetchSite !== 'same-origin' && fetchSite !== 'none';
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== 'null' && origin !== new URL(externalUrl).origin) {
    return true;
  }
  return false;
}

export function formValue(body: unknown, name: string): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

export function formValues(body: unknown, name: string): string[] {
  if (!body || typeof body !== 'object') return [];
  const value = (body as Record<string, unknown>)[name];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}
