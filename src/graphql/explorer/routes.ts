/**
 * `/graphiql`: the real GraphiQL 3.8.3, served entirely by this process (see assets.ts). The page
 * holds no inline script, so the policy keeps `script-src 'self'`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { browserSessionToken } from '../../http/credentials.js';
import { SIGNED_OUT_LINKS, type SiteLink, siteLinks } from '../../http/site-nav.js';
import type { Services } from '../../services/container.js';
import {
  ASSET_PREFIX,
  type Asset,
  type ExplorerAssets,
  acceptsGzip,
  explorerAssets,
  gzipped,
} from './assets.js';

/**
 * No inline script and no off-site load. Styles need 'unsafe-inline' for <style> elements:
 * GraphiQL's dialogs (Radix's scroll lock) inject rules computed at run time, which no hash can
 * name. Inline style *attributes* stay forbidden: React and CodeMirror set styles through the
 * CSSOM, which CSP does not govern, so nothing legitimate needs them.
 */
const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "style-src-attr 'none'",
  // GraphiQL's fonts and icons are data: URIs inside its stylesheet.
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  // The header's sign-out button posts to the site.
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Attribute text: the values are ours (a base64url token, a username), escaped all the same. */
function attribute(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The site's header, as the other pages draw it. */
function siteHeader(signedIn: { username: string; formToken: string } | null): string {
  const link = (l: SiteLink) =>
    `<a href="${attribute(l.href)}"${l.href === '/graphiql' ? ' aria-current="page"' : ''}>${attribute(l.label)}</a>`;
  const nav = signedIn
    ? `<input type="checkbox" id="nav-toggle" class="nav-toggle" />
      <label for="nav-toggle" class="nav-toggle" aria-label="Menu">Menu</label>
      <nav>${siteLinks(signedIn.username).map(link).join('')}
        <form method="post" action="/users/sign_out">
          <input type="hidden" name="authenticity_token" value="${attribute(signedIn.formToken)}" />
          <button type="submit" class="link">Sign out ${attribute(signedIn.username)}</button>
        </form>
      </nav>`
    : `<nav class="signed-out">${SIGNED_OUT_LINKS.map(link).join('')}</nav>`;
  return `<header class="top">
      <a class="brand" href="/">pulsegate</a>
      ${nav}
    </header>`;
}

/**
 * The page; for a signed-in browser it carries the session's GraphQL CSRF token and username, so
 * GraphiQL's fetcher runs queries as that user (the cookie goes along, same-origin only).
 */
function page(
  assets: ExplorerAssets,
  signedIn: { token: string; username: string; formToken: string } | null,
): string {
  const session = signedIn
    ? ` data-csrf="${attribute(signedIn.token)}" data-username="${attribute(signedIn.username)}"`
    : '';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex" />
    <title>GraphiQL · pulsegate</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${assets.graphiqlCss.url}" />
    <link rel="stylesheet" href="${assets.pageCss.url}" />
  </head>
  <body>
    ${siteHeader(signedIn)}
    <div id="graphiql" data-endpoint="/api/graphql"${session}>Loading GraphiQL…</div>
    <noscript>GraphiQL needs JavaScript.</noscript>
    <script src="${assets.react.url}"></script>
    <script src="${assets.reactDom.url}"></script>
    <script src="${assets.graphiql.url}"></script>
    <script src="${assets.init.url}"></script>
  </body>
</html>
`;
}

async function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  reply
    .header('content-type', asset.contentType)
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'accept-encoding');
  if (acceptsGzip(request.headers['accept-encoding'])) {
    return reply.header('content-encoding', 'gzip').send(await gzipped(asset));
  }
  return reply.send(asset.body);
}

export function explorerRoutes(app: FastifyInstance, services: Services): void {
  const assets = explorerAssets();

  app.get('/graphiql', async (request, reply) => {
    const signedIn = await browserSessionToken(services, request);
    return (
      reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', POLICY)
        .header('x-content-type-options', 'nosniff')
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'no-referrer')
        // The page names the assets by digest: revalidate it so an upgrade is seen at once. A
        // signed-in page holds the session's CSRF token: never stored.
        .header('cache-control', signedIn ? 'no-store' : 'no-cache')
        .header('vary', 'cookie')
        .send(page(assets, signedIn))
    );
  });
  app.get(`${ASSET_PREFIX}:file`, (request, reply) => {
    const asset = assets.byUrl.get(`${ASSET_PREFIX}${(request.params as { file: string }).file}`);
    if (!asset) return reply.callNotFound();
    return sendAsset(request, reply, asset);
  });
}
