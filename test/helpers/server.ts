/**
 * Boots the real server on port 0 against a real database: a fresh SQLite file, or a fresh
 * PostgreSQL schema when PULSEGATE_TEST_POSTGRES_URL is set. Each call gets its own database.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/config.js';
import { buildServer } from '../../src/server.js';
import { ManualClock } from '../../src/services/clock.js';
import type { Services } from '../../src/services/container.js';
import { type Store, openStore } from '../../src/store/store.js';
import type { FastifyInstance } from 'fastify';

export type TestDialect = 'sqlite' | 'postgres';

/** The dialects this run covers: SQLite always, PostgreSQL when CI provides a URL. */
export const DIALECTS: TestDialect[] = process.env.PULSEGATE_TEST_POSTGRES_URL
  ? ['sqlite', 'postgres']
  : ['sqlite'];

export interface TestDatabase {
  url: string;
  dialect: TestDialect;
  drop(): Promise<void>;
}

/** A new, empty database of the given dialect. */
export async function createTestDatabase(dialect: TestDialect = 'sqlite'): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'pulsegate-test-'));
    return {
      url: `sqlite:${join(dir, 'pulsegate.db')}`,
      dialect,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const base = process.env.PULSEGATE_TEST_POSTGRES_URL;
  if (!base) throw new Error('PULSEGATE_TEST_POSTGRES_URL is not set');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const sep = base.includes('?') ? '&' : '?';
  return {
    url: `${base}${sep}schema=${schema}`,
    dialect,
    drop: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface TestServer {
  /** Base URL, e.g. http://127.0.0.1:41234 (also the configured external URL). */
  url: string;
  app: FastifyInstance;
  services: Services;
  store: Store;
  clock: ManualClock;
  config: Config;
  dialect: TestDialect;
  close(): Promise<void>;
}

export interface StartOptions {
  dialect?: TestDialect;
  config?: Partial<Config>;
  /** Populate the database before the server starts. */
  seed?: (store: Store) => Promise<void>;
  /** Where the server's own logger writes (with `config.logLevel`); nowhere by default. */
  logStream?: NodeJS.WritableStream;
  /**
   * The URL the server reaches its database by, from the database's own (a proxy in between, to
   * take the database away under it). Migrations and `seed` use the database's own URL.
   */
  serveVia?: (url: string) => string;
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dialect = options.dialect ?? 'sqlite';
  const database = await createTestDatabase(dialect);
  let store = await openStore(database.url);
  if (options.seed) await options.seed(store);
  const databaseUrl = options.serveVia ? options.serveVia(database.url) : database.url;
  if (databaseUrl !== database.url) {
    await store.close();
    store = await openStore(databaseUrl, { migrate: false });
  }
  const config: Config = {
    ...loadConfig(
      // Fixtures are dated from 1970 on: retention stays off unless a test turns it on.
      {
        databaseUrl,
        port: 0,
        logLevel: 'silent',
        rateLimit: 0,
        pageRateLimit: 0,
        retainEvents: '0',
      },
      {},
      false,
    ),
    ...options.config,
  };
  const clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 0));
  const { app, services } = await buildServer({
    config,
    store,
    clock,
    ...(options.logStream ? { logStream: options.logStream } : {}),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no TCP address');
  const url = `http://127.0.0.1:${address.port}`;
  // The external URL is only known once the port is: issuer, links and web URLs use it.
  if (!options.config?.externalUrl) config.externalUrl = url;
  return {
    url,
    app,
    services,
    store,
    clock,
    config,
    dialect,
    async close() {
      await app.close();
      await store.close();
      await database.drop();
    },
  };
}
