/** Configuration from flags and environment, validated once at start. */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { KEY_ENCRYPTION_KEY_MIN_LENGTH } from './domain/key-sealing.js';
import {
  DEFAULT_PRUNE_BATCH,
  DEFAULT_RETENTION,
  type Retention,
  parseRetention,
} from './domain/retention.js';

export type GraphqlEngine = 'mercurius' | 'apollo';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** Logs for people (one line per request) or for machines (JSON lines). */
export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  /** Base URL clients use; issuer, links and web URLs come from it, never from request headers. */
  externalUrl: string;
  logLevel: LogLevel;
  /** Default: pretty when stdout is a terminal, json otherwise. */
  logFormat: LogFormat;
  graphqlEngine: GraphqlEngine;
  /** Requests per minute per client on the API; 0 disables the limit. */
  rateLimit: number;
  /** HTML page requests (sign-in, profile, authorization) per minute per address; 0 disables. */
  pageRateLimit: number;
  /** Allow the OAuth password grant without client credentials (GitLab's default). */
  passwordGrantWithoutClient: boolean;
  /** Offer the OAuth password grant at all (a documented RFC 9700 deviation; on by default). */
  passwordGrant: boolean;
  /**
   * Whole-result caches: REST pages and GraphQL keyset windows (brought forward as events are
   * written, both dialects), whole GraphQL results (while SQLite's data_version is unchanged).
   * Off measures the cold path; counts, checkpoints and row caches stay on.
   */
  pageCache: boolean;
  /**
   * Seals the ID-token signing keys and the webhook tokens in the database (AES-256-GCM); null
   * stores them unsealed, protected only by the database itself.
   */
  keyEncryptionKey: string | null;
  /**
   * Seconds `serve` waits, after SIGTERM or SIGINT, for requests in flight to finish before it
   * drops their connections and exits 1.
   */
  shutdownTimeout: number;
  /**
   * Addresses allowed to read `/-/metrics`: IPs and CIDR blocks, IPv4 and IPv6. Others get 404.
   */
  metricsAllow: string[];
  /** Origins browser apps may call `/api/v4` and `/api/graphql` from (`*`: any; no credentials). */
  corsOrigins: readonly string[];
  /**
   * Let webhooks reach loopback, link-local and private addresses (GitLab's "allow requests to
   * the local network from webhooks"). Off: such URLs are refused, after DNS resolution too.
   */
  webhooksAllowLocal: boolean;
  /**
   * Pages show avatars from Gravatar (the URL the APIs return). Off: identicons drawn by the
   * server, so a page makes no request elsewhere (offline and private installations).
   */
  gravatar: boolean;
  /** The host in SSH clone URLs; null: the external URL's host (without its port). */
  sshHost: string | null;
  /** The port in SSH clone URLs (22 gives GitLab's `git@host:path.git` form). */
  sshPort: number;
  /** How long events are kept (domain/retention.ts); null keeps them all. */
  retainEvents: Retention;
  /** Events deleted per transaction when pruning (GitLab's 10,000). */
  pruneBatchSize: number;
}

export class ConfigError extends Error {}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/pulsegate.db';

export interface ConfigInput {
  host?: string | undefined;
  port?: string | number | undefined;
  databaseUrl?: string | undefined;
  externalUrl?: string | undefined;
  logLevel?: string | undefined;
  logFormat?: string | undefined;
  graphqlEngine?: string | undefined;
  rateLimit?: string | number | undefined;
  pageRateLimit?: string | number | undefined;
  passwordGrantWithoutClient?: string | boolean | undefined;
  passwordGrant?: string | boolean | undefined;
  pageCache?: string | boolean | undefined;
  keyEncryptionKey?: string | undefined;
  shutdownTimeout?: string | number | undefined;
  metricsAllow?: string | undefined;
  corsOrigins?: string | undefined;
  webhooksAllowLocal?: string | boolean | undefined;
  gravatar?: string | boolean | undefined;
  sshHost?: string | undefined;
  sshPort?: string | number | undefined;
  retainEvents?: string | undefined;
  pruneBatchSize?: string | number | undefined;
}

/**
 * Flags win over environment variables, which win over defaults. An empty variable (`PORT=`) is
 * not set. A refused value is a ConfigError naming the flag, its variable and what it takes.
 */
export function loadConfig(
  flags: ConfigInput = {},
  env: NodeJS.ProcessEnv = process.env,
  terminal: boolean = process.stdout.isTTY === true,
): Config {
  const setting = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  /** A switch is on when given as true, `true` or `1`; any other value turns it off. */
  const switchOn = (flag: string | boolean | undefined, variable: string, byDefault: boolean) => {
    const value = flag ?? setting(variable) ?? byDefault;
    return value === true || value === 'true' || value === '1';
  };
  const host = flags.host ?? setting('HOST') ?? '127.0.0.1';
  const port = parsePort(flags.port ?? setting('PORT') ?? 3000);
  const databaseUrl = normalizeDatabaseUrl(
    flags.databaseUrl ?? setting('DATABASE_URL') ?? DEFAULT_DATABASE_URL,
  );
  const externalRaw =
    flags.externalUrl ?? setting('PULSEGATE_EXTERNAL_URL') ?? `http://${hostForUrl(host)}:${port}`;
  const externalUrl = parseExternalUrl(externalRaw);
  const logLevel = (flags.logLevel ?? setting('LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(
      `--log-level (or LOG_LEVEL) must be one of ${LOG_LEVELS.join(', ')}, not ${logLevel}`,
    );
  }
  const logFormat = (flags.logFormat ??
    setting('PULSEGATE_LOG_FORMAT') ??
    (terminal ? 'pretty' : 'json')) as LogFormat;
  if (!LOG_FORMATS.includes(logFormat)) {
    throw new ConfigError(
      `--log-format (or PULSEGATE_LOG_FORMAT) must be pretty or json, not ${logFormat}`,
    );
  }
  const graphqlEngine = (flags.graphqlEngine ??
    setting('PULSEGATE_GRAPHQL_ENGINE') ??
    'mercurius') as GraphqlEngine;
  if (graphqlEngine !== 'mercurius' && graphqlEngine !== 'apollo') {
    throw new ConfigError(
      `--graphql-engine (or PULSEGATE_GRAPHQL_ENGINE) must be mercurius or apollo, not ${String(graphqlEngine)}`,
    );
  }
  const rateLimit = Number(flags.rateLimit ?? setting('PULSEGATE_RATE_LIMIT') ?? 600);
  if (!Number.isInteger(rateLimit) || rateLimit < 0) {
    throw new ConfigError(
      `--rate-limit (or PULSEGATE_RATE_LIMIT) must be a whole number of requests per minute, 0 for none: ${flags.rateLimit ?? setting('PULSEGATE_RATE_LIMIT')}`,
    );
  }
  const pageRateLimit = Number(flags.pageRateLimit ?? setting('PULSEGATE_PAGE_RATE_LIMIT') ?? 120);
  if (!Number.isInteger(pageRateLimit) || pageRateLimit < 0) {
    throw new ConfigError(
      `PULSEGATE_PAGE_RATE_LIMIT must be a whole number of requests per minute, 0 for none: ${flags.pageRateLimit ?? setting('PULSEGATE_PAGE_RATE_LIMIT')}`,
    );
  }
  const passwordGrantWithoutClient = switchOn(
    flags.passwordGrantWithoutClient,
    'PULSEGATE_PASSWORD_GRANT_WITHOUT_CLIENT',
    true,
  );
  const passwordGrant = switchOn(flags.passwordGrant, 'PULSEGATE_PASSWORD_GRANT', true);
  const pageCache = switchOn(flags.pageCache, 'PULSEGATE_PAGE_CACHE', true);
  const keyEncryptionKey =
    flags.keyEncryptionKey ?? setting('PULSEGATE_KEY_ENCRYPTION_KEY') ?? null;
  if (keyEncryptionKey !== null && keyEncryptionKey.length < KEY_ENCRYPTION_KEY_MIN_LENGTH) {
    throw new ConfigError(
      `the key-encryption key (PULSEGATE_KEY_ENCRYPTION_KEY or --key-encryption-key) must be at least ${KEY_ENCRYPTION_KEY_MIN_LENGTH} characters (e.g. openssl rand -base64 32)`,
    );
  }
  const shutdownRaw = flags.shutdownTimeout ?? setting('PULSEGATE_SHUTDOWN_TIMEOUT');
  const shutdownTimeout = Number(shutdownRaw ?? 10);
  if (!Number.isFinite(shutdownTimeout) || shutdownTimeout <= 0 || shutdownTimeout > 3600) {
    throw new ConfigError(
      `--shutdown-timeout (or PULSEGATE_SHUTDOWN_TIMEOUT) must be a number of seconds above 0 and at most 3600: ${shutdownRaw}`,
    );
  }
  const metricsAllow = parseAllowList(
    flags.metricsAllow ?? setting('PULSEGATE_METRICS_ALLOW') ?? DEFAULT_METRICS_ALLOW,
  );
  const corsOrigins = parseOrigins(flags.corsOrigins ?? setting('PULSEGATE_CORS_ORIGINS') ?? '*');
  const webhooksAllowLocal = switchOn(
    flags.webhooksAllowLocal,
    'PULSEGATE_WEBHOOKS_ALLOW_LOCAL',
    false,
  );
  const gravatar = switchOn(flags.gravatar, 'PULSEGATE_GRAVATAR', false);
  const sshHost = parseSshHost(flags.sshHost ?? setting('PULSEGATE_SSH_HOST'));
  const sshPortRaw = flags.sshPort ?? setting('PULSEGATE_SSH_PORT') ?? 22;
  const sshPort = Number(sshPortRaw);
  if (!Number.isInteger(sshPort) || sshPort < 1 || sshPort > 65535) {
    throw new ConfigError(
      `--ssh-port (or PULSEGATE_SSH_PORT) must be a whole number from 1 to 65535: ${sshPortRaw}`,
    );
  }
  const retainRaw = flags.retainEvents ?? setting('PULSEGATE_RETAIN_EVENTS') ?? DEFAULT_RETENTION;
  const retainEvents = parseRetention(retainRaw);
  if (retainEvents === undefined) {
    throw new ConfigError(
      `--retain-events (or PULSEGATE_RETAIN_EVENTS) must be a number of days, months or years such as 90d, 18m or 3y, or 0 to keep every event: ${retainRaw}`,
    );
  }
  const batchRaw =
    flags.pruneBatchSize ?? setting('PULSEGATE_PRUNE_BATCH_SIZE') ?? DEFAULT_PRUNE_BATCH;
  const pruneBatchSize = Number(batchRaw);
  if (!/^\d+$/.test(String(batchRaw).trim()) || pruneBatchSize < 1 || pruneBatchSize > 100_000) {
    throw new ConfigError(
      `PULSEGATE_PRUNE_BATCH_SIZE must be a whole number of events from 1 to 100000: ${batchRaw}`,
    );
  }
  return {
    host,
    port,
    databaseUrl,
    externalUrl,
    logLevel,
    logFormat,
    graphqlEngine,
    rateLimit,
    pageRateLimit,
    passwordGrantWithoutClient,
    passwordGrant,
    pageCache,
    keyEncryptionKey,
    shutdownTimeout,
    metricsAllow,
    corsOrigins,
    webhooksAllowLocal,
    gravatar,
    sshHost,
    sshPort,
    retainEvents,
    pruneBatchSize,
  };
}

/** A host name or address for SSH clone URLs: no scheme, user, port or path. */
function parseSshHost(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  const host = value.trim();
  if (!/^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])$/.test(host)) {
    throw new ConfigError(
      `--ssh-host (or PULSEGATE_SSH_HOST) must be a host name or address, without a scheme, user or port: ${host}`,
    );
  }
  return host;
}

export const DEFAULT_METRICS_ALLOW = '127.0.0.1,::1';

/** `10.0.0.0/8, 192.0.2.7 ,::1` → its entries, each an IP or an IP/prefix; empty allows none. */
export function parseAllowList(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || rest.length > 0 || !prefixOk) {
      throw new ConfigError(
        `PULSEGATE_METRICS_ALLOW must list IP addresses or CIDR blocks, comma-separated: ${entry}`,
      );
    }
  }
  return entries;
}

/** `*` or a comma-separated list of origins (`https://app.example.com`, no path). */
function parseOrigins(value: string): string[] {
  const origins = value
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  if (origins.length === 0)
    throw new ConfigError('PULSEGATE_CORS_ORIGINS must be * or a list of origins');
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: string | null = null;
    try {
      parsed = new URL(origin).origin;
    } catch {
      parsed = null;
    }
    if (parsed !== origin) {
      throw new ConfigError(
        `PULSEGATE_CORS_ORIGINS must be * or origins scheme://host[:port] without a path: ${origin}`,
      );
    }
  }
  return origins;
}

function parsePort(value: string | number): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`--port (or PORT) must be an integer from 0 to 65535, not ${value}`);
  }
  return port;
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** The external URL without a trailing slash: it is the OAuth issuer, compared byte for byte. */
function parseExternalUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      `--external-url (or PULSEGATE_EXTERNAL_URL) must be a URL such as https://pulse.example.com: ${value}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      `--external-url (or PULSEGATE_EXTERNAL_URL) must be an http or https URL: ${value}`,
    );
  }
  if (url.search || url.hash)
    throw new ConfigError(
      `--external-url (or PULSEGATE_EXTERNAL_URL) must not have a query or fragment: ${value}`,
    );
  return url.toString().replace(/\/+$/, '');
}

/** Relative SQLite paths resolve against the working directory. */
export function normalizeDatabaseUrl(url: string): string {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (path === '') {
      throw new ConfigError(
        '--database-url (or DATABASE_URL) sqlite: needs a file path, e.g. sqlite:./data/pulsegate.db',
      );
    }
    return path === ':memory:' ? url : `sqlite:${resolve(path)}`;
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return url;
  throw new ConfigError(
    `--database-url (or DATABASE_URL) must be sqlite:<path> or postgres://…, not ${url}`,
  );
}
