/**
 * The browser session as the web face sees it: the cookie (HttpOnly, SameSite=Lax, Secure when
 * the external URL is https), the signed-in user, and the cross-site checks every POST passes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Services } from '../services/container.js';
import type { ActiveSession } from '../services/sessions.js';
import type { UserRow } from '../store/schema.js';

export const SESSION_COOKIE = '_pulsegate_session';
/** CSRF purpose of the profile and sign-in forms (the consent form has its own, per request). */
export const FORM_PURPOSE = 'form';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function cookieAttributes(config: Config): string {
  const secure = config.externalUrl.startsWith('https:') ? '; Secure' : '';
  return `Path=/; HttpOnly; SameSite=Lax${secure}`;
}

export function setSessionCookie(reply: FastifyReply, config: Config, value: string): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${value}; ${cookieAttributes(config)}`);
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; ${cookieAttributes(config)}; Max-Age=0`);
}

const loaded = new WeakMap<FastifyRequest, ActiveSession | null>();

export async function currentSession(
  services: Services,
  request: FastifyRequest,
): Promise<ActiveSession | null> {
  if (loaded.has(request)) return loaded.get(request)!;
  const session = await services.oauth.sessions.load(readCookie(request, SESSION_COOKIE));
  loaded.set(request, session);
  return session;
}

/** The session, created (anonymous) and sent as a cookie when the browser has none. */
export async function ensureSession(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<ActiveSession> {
  const existing = await currentSession(services, request);
  if (existing) return existing;
  const session = await services.oauth.sessions.startAnonymous();
  setSessionCookie(reply, services.config, session.id);
  loaded.set(request, session);
  return session;
}

export async function signedInUser(
  services: Services,
  session: ActiveSession | null,
): Promise<UserRow | null> {
  if (!session || session.row.user_id === null) return null;
  return services.oauth.accounts.activeUser(session.row.user_id);
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
