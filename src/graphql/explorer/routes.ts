/**
 * `/graphiql`: a self-hosted GraphQL explorer (editor, variables, headers, results, schema docs).
 * Every asset is served from this process, never from a CDN: the stock GraphiQL bundles of
 * Mercurius and Apollo load from unpkg, which air-gapped installations cannot reach.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';

const asset = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

const ASSETS = {
  html: asset('index.html'),
  js: asset('explorer.js'),
  css: asset('explorer.css'),
};

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function send(reply: FastifyReply, type: string, body: string) {
  return reply
    .header('content-type', type)
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-cache')
    .send(body);
}

export function explorerRoutes(app: FastifyInstance): void {
  app.get('/graphiql', (_request, reply) => send(reply, 'text/html; charset=utf-8', ASSETS.html));
  app.get('/graphiql/explorer.js', (_request, reply) =>
    send(reply, 'text/javascript; charset=utf-8', ASSETS.js),
  );
  app.get('/graphiql/explorer.css', (_request, reply) =>
    send(reply, 'text/css; charset=utf-8', ASSETS.css),
  );
}
