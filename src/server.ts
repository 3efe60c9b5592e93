/**
 * The composition root: builds the store, the services and the faces from a validated Config and
 * returns a Fastify instance. The CLI and the tests call the same function.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import rateLimit from '@fastify/rate-limit';
import formbody from '@fastify/formbody';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify';
import type { Config } from './config.js';
import { graphqlApi } from './graphql/index.js';
import { oauthEndpoints } from './oauth/index.js';
import { RATE_LIMIT_TEXT, limitRequests } from './http/rate-limit.js';
import { restApi } from './rest/index.js';
import { sendJson } from './rest/respond.js';
import type { Clock } from './services/clock.js';
import { type Services, createServices } from './services/container.js';
import { type Store, openStore } from './store/store.js';
import { webPages } from './web/index.js';

export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

export interface BuildOptions {
  config: Config;
  /** An already open store (tests share one); otherwise one is opened from the config. */
  store?: Store;
  clock?: Clock;
  /** Pino options or a logger; defaults to JSON lines at the configured level. */
  logger?: FastifyServerOptions['logger'];
}

export interface Server {
  app: FastifyInstance;
  services: Services;
}

const SECRET_PARAMS =
  /([?&](?:private_token|access_token|bearer_token|code|client_secret|password|refresh_token)=)[^&]*/gi;

/** Request URLs in logs never carry credentials. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[REDACTED]');
}

export async function buildServer(options: BuildOptions): Promise<Server> {
  const { config } = options;
  const store = options.store ?? (await openStore(config.databaseUrl));
  const services = createServices(config, store, options.clock);
  // ID-token signing keys: generated on the first start (race-safe), checked on every start.
  await services.oauth.signingKeys.ensure();

  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers["private-token"]', 'req.headers.cookie'],
      serializers: {
        req: (req: { method: string; url: string; ip?: string; id: string }) => ({
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
        }),
      },
    },
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    bodyLimit: 1024 * 1024,
    // Issuer, links and web URLs come from configuration, never from Host/X-Forwarded-* headers.
    trustProxy: false,
    // A malformed percent-encoding never reaches routing; answer it in the API's JSON shape
    // instead of Fastify's default body (which exposes framework error codes).
    frameworkErrors: (_error, _request, reply) =>
      sendJson(reply, 400, { error: '400 Bad Request - malformed URL' }),
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // Some clients send `Content-Type: application/json` with an empty body on GET and DELETE.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const error = Object.assign(new Error('body is not valid JSON'), { statusCode: 400 });
      done(error, undefined);
    }
  });
  await app.register(formbody);

  if (config.rateLimit > 0) {
    await app.register(rateLimit, {
      global: false,
      max: config.rateLimit,
      timeWindow: 60_000,
    });
  }

  await app.register(
    async (api) => {
      limitRequests(api, config, (max) => ({
        error: RATE_LIMIT_TEXT(max),
        message: '429 Too Many Requests',
      }));
      await api.register(restApi(services, PACKAGE_VERSION));
    },
    { prefix: '/api/v4' },
  );

  await app.register(graphqlApi(services));

  await app.register(oauthEndpoints(services));
  await app.register(webPages(services));

  app.get('/-/health', async (_request, reply) => sendJson(reply, 200, { status: 'ok' }));

  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/')) return sendJson(reply, 404, { error: '404 Not Found' });
    return sendJson(reply, 404, { message: '404 Not Found' });
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendJson(reply, status, { error: error.message });
    request.log.error({ err: error }, 'unhandled error');
    return sendJson(reply, 500, { message: '500 Internal Server Error' });
  });

  app.addHook('onClose', async () => {
    if (!options.store) await store.close();
  });
  return { app, services };
}
