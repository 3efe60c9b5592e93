/**
 * The composition root: builds the store, the services and the faces from a validated Config and
 * returns a Fastify instance. The CLI and the tests call the same function.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { atomFeeds } from './feeds/index.js';
import { graphqlApi } from './graphql/index.js';
import { oauthEndpoints } from './oauth/index.js';
import { RATE_LIMIT_TEXT, limitRequests, registerRateLimit } from './http/rate-limit.js';
import { isWarmUp } from './http/warm-up.js';
import { RequestLog, logDestination } from './http/logging.js';
import { restErrorHandler } from './rest/errors.js';
import { AJV_OPTIONS } from './rest/params.js';
import { restApi } from './rest/index.js';
import { startBackgroundJobs } from './background.js';
import { establishReadContext } from './http/read-context.js';
import { conditionalRequests } from './http/conditional.js';
import { credentialRequests } from './http/credentials.js';
import { registerCors } from './http/cors.js';
import { sendJson } from './http/json.js';
import { operationsEndpoints } from './http/operations.js';
import type { Clock } from './services/clock.js';
import { type Services, createServices } from './services/container.js';
import { isTemporarilyUnavailable } from './services/health.js';
import { type Store, openStore } from './store/store.js';
import { notFoundHandler } from './web/not-found.js';
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
  /** Pino options or a logger; defaults to lines in the configured format and level. */
  logger?: FastifyServerOptions['logger'];
  /** Where the default logger writes its lines (stdout when absent). */
  logStream?: { write(line: string): unknown };
}

export interface Server {
  app: FastifyInstance;
  services: Services;
}

const SECRET_PARAMS = new Set([
  'private_token',
  'access_token',
  'bearer_token',
  'code',
  'client_secret',
  'password',
  'refresh_token',
]);

/** Percent-escapes of ASCII characters, decoded; anything else (and malformed escapes) kept. */
function decodeAscii(text: string): string {
  return text.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  );
}

/** The credential a query-string pair carries, by its decoded name (any case), or undefined. */
function secretParam(pair: string): string | undefined {
  let text = pair;
  // Names are compared decoded, as the server reads them (`%70rivate_token`), and once more, so a
  // doubly encoded name or `=` (`%253D`) is not logged either.
  for (let i = 0; i < 3 && text.includes('%'); i++) text = decodeAscii(text);
  const eq = text.indexOf('=');
  if (eq === -1) return undefined;
  const name = text.slice(0, eq).replace(/\+/g, ' ').trim().toLowerCase();
  return SECRET_PARAMS.has(name) ? name : undefined;
}

/**
 * Request URLs in logs never carry credentials: each query-string pair whose name decodes to a
 * credential parameter is logged as `<name>=[REDACTED]`; everything else is kept as sent.
 */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) return url;
  const parts = url.slice(at + 1).split(/([&;])/);
  let redacted = false;
  for (let i = 0; i < parts.length; i += 2) {
    const name = secretParam(parts[i]!);
    if (name !== undefined) {
      parts[i] = `${name}=[REDACTED]`;
      redacted = true;
    }
  }
  return redacted ? `${url.slice(0, at + 1)}${parts.join('')}` : url;
}

function withStream(stream: { write(line: string): unknown } | undefined) {
  return stream ? { stream } : {};
}

export async function buildServer(options: BuildOptions): Promise<Server> {
  const { config } = options;
  const store = options.store ?? (await openStore(config.databaseUrl));
  // Failures after a write committed (an after-commit hook) are logged, never the writer's error.
  const services = createServices(config, store, options.clock, (error) =>
    app.log.error({ err: error }, 'after-commit hook failed'),
  );
  // ID-token signing keys: generated on the first start (race-safe), checked on every start.
  await services.oauth.signingKeys.ensure();
  // Hook tokens: sealed when a key-encryption key is set.
  const hookTokens = await services.webhooks.sealTokens();

  const app = Fastify({
    // Silent: no logger at all, rather than a child logger made (and discarded) per request.
    logger:
      options.logger ??
      (config.logLevel === 'silent' && !options.logStream
        ? false
        : {
            level: config.logLevel,
            ...withStream(logDestination(config.logFormat, options.logStream)),
            redact: [
              'req.headers.authorization',
              'req.headers["private-token"]',
              'req.headers.cookie',
            ],
            serializers: {
              req: (req: { method: string; url: string; ip?: string; id: string }) => ({
                method: req.method,
                url: redactUrl(req.url),
                remoteAddress: req.ip,
              }),
            },
          }),
    // One line per request; the server's own warm-up requests (http/warm-up.ts) are not logged.
    logController: new RequestLog({ disableRequestLogging: (req: object) => isWarmUp(req) }),
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    bodyLimit: 1024 * 1024,
    // Declared parameters (rest/params.ts) report every failure and coerce nothing.
    ajv: { customOptions: AJV_OPTIONS },
    // Issuer, links and web URLs come from configuration, never from Host/X-Forwarded-* headers.
    trustProxy: false,
    // A malformed percent-encoding never reaches routing; answer it in the API's JSON shape
    // instead of Fastify's default body (which exposes framework error codes).
    frameworkErrors: (_error, _request, reply) =>
      sendJson(reply, 400, { error: '400 Bad Request - malformed URL' }),
  });

  // A database restart drops the pool's idle connections: the next queries open others.
  store.onIdleError((error) =>
    app.log.warn(
      { err: error },
      'an idle database connection failed; the next query opens another',
    ),
  );
  if (hookTokens.unsealed > 0) {
    app.log.warn(
      `${hookTokens.unsealed} webhook secret token(s) are stored unsealed: set PULSEGATE_KEY_ENCRYPTION_KEY to seal them at the next start`,
    );
  }
  if (hookTokens.unreadable > 0) {
    app.log.warn(
      `${hookTokens.unreadable} webhook secret token(s) cannot be opened with this key-encryption key: their hooks' deliveries fail until the token is set again`,
    );
  }
  // First of all: when the request came (PostgreSQL), before anything reads the database.
  establishReadContext(app, services);
  // Per-request state (credentials, the response cache's place) lives on the request.
  credentialRequests(app);
  conditionalRequests(app, services);
  // Every-request hooks take callbacks rather than promises: one less promise per hook.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  // Requests by route pattern (never the URL: ids and paths would make a series per request).
  app.addHook('onResponse', (request, reply, done) => {
    if (isWarmUp(request)) return done();
    const route = request.routeOptions.url ?? '(unmatched)';
    services.metrics.request(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
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

  await registerRateLimit(app, services);

  await app.register(
    async (api) => {
      // Before the rate limit: preflights are answered without counting or authenticating.
      await registerCors(api, config.corsOrigins, [
        'GET',
        'HEAD',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
      ]);
      limitRequests(api, services, (max) => ({
        error: RATE_LIMIT_TEXT(max),
        message: '429 Too Many Requests',
      }));
      await api.register(restApi(services, PACKAGE_VERSION));
    },
    { prefix: '/api/v4' },
  );

  await app.register(graphqlApi(services, PACKAGE_VERSION));

  // Atom feeds at the root (GitLab's paths), on the API's budget: feed readers poll like clients.
  await app.register(async (feeds) => {
    limitRequests(feeds, services, (max) => ({ error: RATE_LIMIT_TEXT(max) }));
    await feeds.register(atomFeeds(services, PACKAGE_VERSION));
  });

  await app.register(oauthEndpoints(services));
  await app.register(webPages(services));

  await app.register(operationsEndpoints(services));

  app.setNotFoundHandler(notFoundHandler(app));
  // Routes outside the four faces (health): the API's JSON shapes.
  app.setErrorHandler(restErrorHandler);

  const stopJobs = startBackgroundJobs(services, app.log);
  // Live activity and the webhook worker run while the server serves; both stop before the store
  // closes.
  // The database out of reach (a restart, an outage) is the operator's to fix, not a defect:
  // a warning, and live activity picks up where it was once the database is back.
  services.live.report = (err) =>
    isTemporarilyUnavailable(err)
      ? app.log.warn({ err }, 'live activity: the database is unavailable; retrying')
      : app.log.error({ err }, 'live activity failed');
  app.addHook('onReady', async () => {
    await services.live.start();
    services.webhooks.worker.start();
  });
  app.addHook('onClose', async () => {
    await stopJobs();
    await services.live.stop();
    await services.webhooks.worker.stop();
    if (!options.store) await store.close();
  });
  return { app, services };
}
