/**
 * The database out of reach under a running server: PostgreSQL down or restarting (a proxy in
 * front of it is cut, so connections end and new ones are refused), SQLite's write lock held by
 * another process past the busy timeout. Every face answers 503 with Retry-After, in its own
 * error shape, at once rather than after a hang; the log says why at warning level, with no
 * "unhandled error"; and the server serves again as soon as the database is back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import type { Store } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { logLines } from '../helpers/log-lines.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { isDatabaseUnavailable } from '../../src/store/connection-errors.js';
import { type TcpProxy, tcpProxy } from '../helpers/tcp-proxy.js';

/** alice, Maintainer of the public project acme/api with `events` events, and her token. */
async function maintainerWithProject(store: Store, events: number) {
  const f = new Fixtures(store);
  const alice = await f.user('alice');
  const projectId = (await f.project('acme/api', alice.id, 'public')).id;
  await f.member(projectId, alice.id, 40);
  for (let i = 0; i < events; i++) {
    await f.event({ projectId, authorId: alice.id, action: 'created', createdAt: i });
  }
  return { projectId, token: await f.token(alice.id) };
}

interface Line {
  level: number;
  msg: string;
}

if (DIALECTS.includes('postgres')) {
  describe('PostgreSQL out of reach under a running server (postgres)', () => {
    let server: TestServer;
    let proxy: TcpProxy;
    let token: string;
    let projectId: number;
    const { stream, lines } = logLines<Line>();

    before(async () => {
      const target = new URL(process.env.PULSEGATE_TEST_POSTGRES_URL!);
      proxy = await tcpProxy(target.hostname, Number(target.port || 5432));
      server = await startServer({
        dialect: 'postgres',
        config: { logLevel: 'warn' },
        logStream: stream,
        serveVia: (url) => {
          const via = new URL(url);
          via.hostname = '127.0.0.1';
          via.port = String(proxy.port);
          return via.toString();
        },
        seed: async (store) => {
          ({ projectId, token } = await maintainerWithProject(store, 5));
        },
      });
    });
    after(async () => {
      await proxy.restore();
      await server.close();
      await proxy.close();
    });

    const listing = () => `/api/v4/projects/${projectId}/events`;
    const ask = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, {
        ...init,
        headers: { 'private-token': token, ...(init.headers as Record<string, string>) },
        signal: AbortSignal.timeout(5_000),
      });

    it('every face answers 503 with Retry-After in its own shape, then serves again once the database is back', async () => {
      const before = await ask(listing());
      assert.equal(before.status, 200);
      assert.equal(before.headers.get('x-total'), '5');

      await proxy.cut();
      const started = Date.now();
      const answers: Array<[string, Response]> = [
        ['REST read', await ask(`${listing()}?page=2`)],
        [
          'REST write',
          await ask(`/api/v4/projects/${projectId}/issues`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ title: 'While the database is away' }),
          }),
        ],
        [
          'GraphQL',
          await ask('/api/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ project(idOrPath: "acme/api") { id } }' }),
          }),
        ],
        [
          'OAuth',
          await fetch(`${server.url}/oauth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=password&username=alice&password=secret-password',
          }),
        ],
        ['page', await fetch(`${server.url}/alice`)],
        ['feed', await fetch(`${server.url}/acme/api.atom`)],
      ];
      // Refused connections fail fast: no request waits for a timeout.
      assert.ok(Date.now() - started < 4_000, `${Date.now() - started} ms`);
      const bodies: Record<string, unknown> = {};
      for (const [face, response] of answers) {
        assert.equal(response.status, 503, face);
        assert.equal(response.headers.get('retry-after'), '5', face);
        const type = response.headers.get('content-type') ?? '';
        bodies[face] = type.includes('json') ? await response.json() : await response.text();
      }
      assert.deepEqual(bodies['REST read'], { message: '503 Service Unavailable' });
      assert.deepEqual(bodies['REST write'], { message: '503 Service Unavailable' });
      assert.deepEqual(bodies.GraphQL, {
        errors: [
          {
            message: 'Service temporarily unavailable: retry shortly',
            extensions: { code: 'SERVICE_UNAVAILABLE' },
          },
        ],
      });
      assert.deepEqual(bodies.OAuth, {
        error: 'temporarily_unavailable',
        error_description:
          'The authorization server is temporarily unable to handle the request. Retry shortly.',
      });
      assert.match(String(bodies.page), /<title>[^<]*Temporarily unavailable/);
      assert.equal(bodies.feed, '503 Service Unavailable\n');
      assert.equal(
        lines.filter((l) => l.level >= 50).length,
        0,
        `no error-level lines: ${JSON.stringify(lines.filter((l) => l.level >= 50))}`,
      );
      assert.ok(lines.some((l) => l.msg === 'database unavailable (rest): answered 503'));

      await proxy.restore();
      const back = await ask(`${listing()}?page=2`);
      assert.equal(back.status, 200);
      const written = await ask(`/api/v4/projects/${projectId}/issues`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'After the outage' }),
      });
      assert.equal(written.status, 201);
    });
  });
}

describe('SQLite write lock held past the busy timeout (sqlite)', () => {
  let server: TestServer;
  let token: string;
  let projectId: number;

  before(async () => {
    server = await startServer({
      seed: async (store) => {
        ({ projectId, token } = await maintainerWithProject(store, 0));
      },
    });
  });
  after(() => server.close());

  it("writes wait their turn behind another process's write transactions, and all land", async () => {
    // Another process writes in bursts for a second and a half, holding the lock 30 ms each time.
    const file = server.config.databaseUrl.replace(/^sqlite:/, '');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1]);
         db.pragma('busy_timeout = 5000');
         const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
         const end = Date.now() + 1500;
         console.log('holding');
         while (Date.now() < end) { db.exec('BEGIN IMMEDIATE'); pause(30); db.exec('COMMIT'); pause(3); }`,
        file,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    await new Promise((resolve) => holder.stdout!.once('data', resolve));
    const titles = Array.from({ length: 30 }, (_, i) => `Concurrent ${i}`);
    const statuses = await Promise.all(
      titles.map(async (title) => {
        const response = await fetch(`${server.url}/api/v4/projects/${projectId}/issues`, {
          method: 'POST',
          headers: { 'private-token': token, 'content-type': 'application/json' },
          body: JSON.stringify({ title }),
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    await exited;
    assert.deepEqual(
      statuses,
      titles.map(() => 201),
    );
    const issues = await fetch(`${server.url}/api/v4/projects/${projectId}/issues?per_page=100`, {
      headers: { 'private-token': token },
    });
    const stored = ((await issues.json()) as Array<{ title: string }>).map((i) => i.title);
    assert.deepEqual(stored.filter((t) => t.startsWith('Concurrent')).sort(), [...titles].sort());
  });

  it('a write waits out the busy timeout, then answers 503 with Retry-After; reads go on', async () => {
    const other = new Database(server.config.databaseUrl.replace(/^sqlite:/, ''));
    const create = (title: string) =>
      fetch(`${server.url}/api/v4/projects/${projectId}/issues`, {
        method: 'POST',
        headers: { 'private-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ title }),
      });
    const read = () =>
      fetch(`${server.url}/api/v4/projects/${projectId}/events`, {
        headers: { 'private-token': token },
      });
    // The token's first use records it (a write); later ones within ten minutes do not.
    assert.equal((await read()).status, 200);
    try {
      // Another process holds the write lock (a long import, a stuck script).
      other.exec('BEGIN IMMEDIATE');
      const started = Date.now();
      assert.equal((await read()).status, 200);
      assert.ok(Date.now() - started < 1_000, 'a read does not wait for the write lock');
      const refused = await create('Locked out');
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.deepEqual(await refused.json(), { message: '503 Service Unavailable' });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const created = await create('After the lock');
    assert.equal(created.status, 201);
    const issues = await fetch(`${server.url}/api/v4/projects/${projectId}/issues?per_page=100`, {
      headers: { 'private-token': token },
    });
    const titles = ((await issues.json()) as Array<{ title: string }>).map((i) => i.title);
    // Nothing half-written by the refused write; the next one landed.
    assert.equal(titles[0], 'After the lock');
    assert.ok(!titles.includes('Locked out'));
  });
});

describe('which database errors mean "unavailable"', () => {
  const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  it('connection loss, shutdown and a held lock do; query errors do not', () => {
    const unavailable = [
      coded('ECONNREFUSED'),
      coded('57P01'), // admin_shutdown: a restart
      coded('57P03'), // cannot_connect_now: starting up
      coded('08006'), // connection_failure
      coded('53300'), // too_many_connections
      coded('SQLITE_BUSY'),
      coded('SQLITE_BUSY_SNAPSHOT'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
    ];
    const notUnavailable = [
      coded('23505'), // unique_violation
      coded('08P01'), // protocol_violation: a bug, not an outage
      coded('42P01'), // undefined_table
      coded('SQLITE_CONSTRAINT_UNIQUE'),
      coded('SQLITE_CORRUPT'),
      new Error('something else'),
      'ECONNREFUSED',
      null,
    ];
    for (const error of unavailable)
      assert.equal(isDatabaseUnavailable(error), true, String(error));
    for (const error of notUnavailable) {
      assert.equal(isDatabaseUnavailable(error), false, String(error));
    }
  });
});
