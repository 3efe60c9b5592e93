/**
 * What a path that matches no route answers, decided once for the whole server: a browser
 * (`Accept: text/html`) gets an HTML page, API clients keep GitLab's JSON, and a page path with a
 * trailing slash is sent to its canonical form (`/profile/applications/` → 308
 * `/profile/applications`). `/api/*` is JSON always and never redirected, as GitLab answers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendJson } from '../http/json.js';
import { errorPage, html, sendHtml } from './html.js';

function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}

/**
 * The canonical path of a page reached with trailing slashes, or null. Only a GET route that
 * exists is a target, and never one starting `//` or holding a backslash (a browser would read
 * either as another host).
 */
function canonicalPage(app: FastifyInstance, request: FastifyRequest): string | null {
  if (request.method !== 'GET' && request.method !== 'HEAD') return null;
  const at = request.url.indexOf('?');
  const path = at === -1 ? request.url : request.url.slice(0, at);
  if (!path.endsWith('/') || path.startsWith('/api/')) return null;
  const canonical = path.replace(/\/+$/, '');
  if (canonical === '' || canonical.startsWith('//') || canonical.includes('\\')) return null;
  if (!app.hasRoute({ method: 'GET', url: canonical })) return null;
  return canonical + (at === -1 ? '' : request.url.slice(at));
}

export function notFoundHandler(app: FastifyInstance) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith('/api/')) return sendJson(reply, 404, { error: '404 Not Found' });
    const canonical = canonicalPage(app, request);
    if (canonical !== null) return reply.redirect(canonical, 308);
    if (wantsHtml(request)) {
      return sendHtml(
        reply,
        404,
        errorPage(
          'Page not found',
          html`The page you were looking for does not exist. Go to <a href="/">the home page</a>.`,
        ),
      );
    }
    return sendJson(reply, 404, { message: '404 Not Found' });
  };
}
