/**
 * The WebSocket transport misused: every bad frame gets the graphql-transport-ws close code or a
 * GraphQL error, never a crash or a hang; a fuzz test throws random frames. Also: the browser
 * session (cookie on the upgrade, CSRF token in connection_init), slow consumers dropped with
 * 1013, and shutdown closing sockets with 1001.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import WebSocket from 'ws';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { Fixtures } from '../helpers/fixtures.js';
import { insertEvents } from '../helpers/bulk.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { Browser, PASSWORD, startOAuthServer } from '../oauth/support.js';
import { ENGINES } from './client.js';
import {
  EVENT_FIELDS,
  liveClient,
  sleep,
  untilSubscribed,
  writeEvent,
  wsUrl,
} from './live-support.js';

const PROTOCOL = 'graphql-transport-ws';
const ON_OPEN = `subscription { eventCreated(project: "acme/open") { ${EVENT_FIELDS} } }`;

interface Raw {
  socket: WebSocket;
  messages: Array<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
  send(frame: unknown): void;
  next(): Promise<Record<string, unknown>>;
}

async function raw(
  base: string,
  options: { protocol?: string | null; headers?: Record<string, string> } = {},
): Promise<Raw> {
  const protocol = options.protocol === undefined ? PROTOCOL : options.protocol;
  const socket = new WebSocket(wsUrl(base), protocol === null ? [] : [protocol], {
    headers: options.headers ?? {},
  });
  const messages: Array<Record<string, unknown>> = [];
  const waiting: Array<(m: Record<string, unknown>) => void> = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else messages.push(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    socket,
    messages,
    closed,
    send: (frame) => socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    next: () => {
      const queued = messages.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}

const INIT = { type: 'connection_init' };

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`GraphQL subscription transport (${engine}, ${dialect})`, () => {
      let server: TestServer;
      let token: string;
      let ids: { alice: number; open: number };

      before(async () => {
        server = await startServer({
          dialect,
          config: { graphqlEngine: engine },
          seed: async (store) => {
            const fx = new Fixtures(store);
            const alice = await fx.user('alice');
            const open = await fx.project('acme/open', alice.id, 'public');
            await fx.member(open.id, alice.id, ACCESS_LEVELS.maintainer);
            ids = { alice: alice.id, open: open.id };
            token = await fx.token(alice.id);
          },
        });
      });
      after(() => server.close());

      const closesWith = async (frames: unknown[], code: number, init = true) => {
        const c = await raw(server.url);
        if (init) {
          c.send(INIT);
          assert.deepEqual(await c.next(), { type: 'connection_ack' });
        }
        for (const frame of frames) c.send(frame);
        assert.equal((await c.closed).code, code);
      };

      it('malformed frames: 4400 (not JSON, no type, unknown type, binary, bad subscribe payload)', async () => {
        await closesWith(['{nope'], 4400);
        await closesWith([{ id: '1' }], 4400);
        await closesWith([{ type: 'launch' }], 4400);
        // Messages only a server sends, from a client: 4400 too (not an internal error).
        await closesWith([{ type: 'next', id: '1', payload: {} }], 4400);
        await closesWith([{ type: 'connection_ack' }], 4400, false);
        await closesWith([Buffer.from([1, 2, 3])], 4400);
        await closesWith([{ type: 'subscribe', id: '1', payload: { query: 42 } }], 4400);
      });

      it('subscribe before connection_init: 4401; connection_init twice: 4429', async () => {
        await closesWith(
          [{ type: 'subscribe', id: '1', payload: { query: ON_OPEN } }],
          4401,
          false,
        );
        await closesWith([INIT], 4429);
      });

      it('one id subscribed twice: 4409', async () => {
        const subscribe = { type: 'subscribe', id: 'same', payload: { query: ON_OPEN } };
        await closesWith([subscribe, subscribe], 4409);
      });

      it('a frame over 64 KiB: 1009; no graphql-transport-ws subprotocol: 4406', async () => {
        await closesWith(
          [JSON.stringify({ type: 'ping', payload: { x: 'a'.repeat(70_000) } })],
          1009,
        );
        const legacy = await raw(server.url, { protocol: null });
        assert.equal((await legacy.closed).code, 4406);
      });

      it('no connection_init within 3 s: 4408', async () => {
        const c = await raw(server.url);
        assert.equal((await c.closed).code, 4408);
      });

      it('an unknown token in connection_init: 4403', async () => {
        const c = await raw(server.url);
        c.send({ type: 'connection_init', payload: { 'PRIVATE-TOKEN': 'glpat-unknown' } });
        assert.deepEqual(await c.closed, { code: 4403, reason: 'Forbidden' });
      });

      it('queries, bad documents and bad variables over the socket: error messages with codes; the socket stays open', async () => {
        const c = await raw(server.url);
        c.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
        assert.deepEqual(await c.next(), { type: 'connection_ack' });
        const cases: Array<[unknown, string, string]> = [
          [
            { query: '{ currentUser { username } }' },
            'BAD_REQUEST',
            'Only subscriptions are served over WebSocket; send queries and mutations over HTTP.',
          ],
          [
            { query: 'subscription {' },
            'GRAPHQL_PARSE_FAILED',
            'Syntax Error: Expected Name, found <EOF>.',
          ],
          [
            { query: 'subscription { nope }' },
            'GRAPHQL_VALIDATION_FAILED',
            'Cannot query field "nope" on type "Subscription".',
          ],
          [
            {
              query: 'subscription($p: ID) { eventCreated(project: $p) { id } }',
              variables: { p: [1] },
            },
            'BAD_USER_INPUT',
            'Variable "$p" got invalid value [1]; ID cannot represent value: [1]',
          ],
          [{ query: 'x'.repeat(10_001) }, 'QUERY_TOO_LARGE', 'Query too large'],
        ];
        for (const [n, [payload, code, message]] of cases.entries()) {
          c.send({ type: 'subscribe', id: `q${n}`, payload });
          const located = code === 'GRAPHQL_VALIDATION_FAILED';
          assert.deepEqual(await c.next(), {
            id: `q${n}`,
            type: 'error',
            payload: [
              {
                message,
                ...(located ? { locations: [{ line: 1, column: 16 }] } : {}),
                extensions: { code },
              },
            ],
          });
        }
        // Completing an id nobody knows is ignored; the connection still answers pings.
        c.send({ type: 'complete', id: 'never-subscribed' });
        c.send({ type: 'ping' });
        assert.deepEqual(await c.next(), { type: 'pong' });
        c.socket.close(1000);
      });

      it('complete from the client ends the subscription on the server', async () => {
        const c = await raw(server.url);
        c.send(INIT);
        await c.next();
        c.send({ type: 'subscribe', id: 's', payload: { query: ON_OPEN } });
        await untilSubscribed(server.services, 1);
        c.send({ type: 'complete', id: 's' });
        const start = Date.now();
        while (server.services.live.size > 0 && Date.now() - start < 2_000) await sleep(10);
        assert.equal(server.services.live.size, 0);
        c.socket.close(1000);
      });

      it('fuzz: random frames never crash the server nor leave a subscription behind', async () => {
        const allowed = new Set([1000, 1005, 1009, 4400, 4401, 4403, 4406, 4408, 4409, 4429]);
        const frame = fc.oneof(
          fc.string(),
          fc.json(),
          fc.record({
            type: fc.constantFrom(
              'connection_init',
              'subscribe',
              'complete',
              'ping',
              'pong',
              'next',
              'x',
            ),
            id: fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(undefined)),
            payload: fc.oneof(
              fc.jsonValue(),
              fc.record({
                query: fc.oneof(
                  fc.constant(ON_OPEN),
                  fc.string(),
                  fc.constant('{ currentUser { id } }'),
                ),
                variables: fc.oneof(fc.constant(undefined), fc.jsonValue()),
                operationName: fc.oneof(fc.constant(undefined), fc.string(), fc.constant(null)),
              }),
            ),
          }),
        );
        await fc.assert(
          fc.asyncProperty(
            fc.boolean(),
            fc.array(frame, { maxLength: 6 }),
            async (init, frames) => {
              const c = await raw(server.url);
              if (init) c.send(INIT);
              for (const f of frames) c.send(f);
              // Whatever happened, the socket is either still open or closed with a protocol code.
              const outcome = await Promise.race([c.closed, sleep(60).then(() => null)]);
              if (outcome) assert.ok(allowed.has(outcome.code), `closed with ${outcome.code}`);
              c.socket.close(1000);
              await c.closed;
            },
          ),
          { numRuns: 120 },
        );
        const start = Date.now();
        while (server.services.live.size > 0 && Date.now() - start < 3_000) await sleep(10);
        assert.equal(server.services.live.size, 0);
        const health = await fetch(`${server.url}/-/health`);
        assert.equal(health.status, 200);
      });

      it('a subscriber that stops reading is dropped with 1013 instead of being buffered forever', async () => {
        const c = await raw(server.url);
        c.send(INIT);
        await c.next();
        const pushQuery = `subscription { eventCreated(project: "acme/open") { databaseId payload { ... on PushData { commits { id message } } } } }`;
        c.send({ type: 'subscribe', id: 's', payload: { query: pushQuery } });
        await untilSubscribed(server.services, 1);
        // Stop reading: the kernel buffers fill, then the server's queue.
        const tcp = (c.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
        tcp.pause();
        // Big pushes (20 commits with long messages): tens of MB, more than the kernel buffers.
        // The payloads commit with their events: on PostgreSQL the NOTIFY fires at that commit,
        // and events delivered before their payloads would be small enough to fit the buffers.
        const commits = JSON.stringify(
          Array.from({ length: 20 }, (_, i) => ({
            id: String(i).padStart(40, '0'),
            message: `commit ${i} `.repeat(110),
            timestamp: '2026-01-15T12:00:00+00:00',
            url: 'http://example.test/c',
            author: { name: 'Dev', email: 'dev@example.com' },
          })),
        );
        const now = Date.now();
        await insertEvents(
          server.store,
          Array.from({ length: 1_000 }, () => ({
            projectId: ids.open,
            authorId: ids.alice,
            action: 'pushed' as const,
            createdAt: now,
          })),
          async (trx, pushes) => {
            for (let i = 0; i < pushes.length; i += 500) {
              await trx
                .insertInto('push_event_payloads')
                .values(
                  pushes.slice(i, i + 500).map((eventId) => ({
                    event_id: eventId,
                    action: 'pushed',
                    ref_type: 'branch',
                    ref: 'main',
                    commit_from: 'a'.repeat(40),
                    commit_to: 'b'.repeat(40),
                    commit_count: 20,
                    commit_title: 'commit 0',
                    commits,
                  })),
                )
                .execute();
            }
          },
        );
        // Nudge delivery (the SQLite poll or the PostgreSQL NOTIFY would do it too).
        await writeEvent(server.store, server.services, {
          projectId: ids.open,
          authorId: ids.alice,
          action: 'closed',
        });
        await sleep(7_000);
        tcp.resume();
        // Bounded: a server that never drops the consumer fails here instead of hanging the run.
        const outcome = await Promise.race([c.closed, sleep(10_000).then(() => null)]);
        assert.deepEqual(outcome, { code: 1013, reason: 'Slow consumer' });
        const received = c.messages.filter((m) => m.type === 'next').length;
        assert.ok(received < 1_001, `${received} events arrived`);
        const start = Date.now();
        while (server.services.live.size > 0 && Date.now() - start < 3_000) await sleep(10);
        assert.equal(server.services.live.size, 0);
      });
    });
  }
}

describe('GraphQL subscriptions with the browser session', () => {
  it('cookie on the upgrade + the session CSRF token in connection_init: subscribes as the user; a wrong token: 4403; the cookie alone: anonymous', async () => {
    const world = await startOAuthServer();
    try {
      const fx = new Fixtures(world.server.store);
      const open = await fx.project('acme/live', world.alice.id, 'private');
      await fx.member(open.id, world.alice.id, ACCESS_LEVELS.developer);
      const browser = new Browser(world.server.url);
      await browser.signIn('alice', PASSWORD);
      const csrf = /data-csrf="([A-Za-z0-9_-]+)"/.exec(
        (await browser.fetch('/graphiql')).text,
      )![1]!;
      const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const query = `subscription { eventCreated(project: "acme/live") { databaseId } }`;

      const signedIn = liveClient(world.server.url, { 'x-csrf-token': csrf }, { cookie });
      const sub = signedIn.subscribe(query);
      await untilSubscribed(world.server.services, 1);
      const id = await writeEvent(world.server.store, world.server.services, {
        projectId: open.id,
        authorId: world.alice.id,
        action: 'created',
      });
      await sub.waitFor(1, 1_000);
      assert.deepEqual(sub.events, [{ databaseId: id }]);
      await signedIn.dispose();

      const wrong = liveClient(world.server.url, { 'x-csrf-token': 'forged' }, { cookie });
      wrong.subscribe(query);
      assert.equal(await wrong.closed, 4403);

      const cookieOnly = liveClient(world.server.url, {}, { cookie });
      const anonymous = cookieOnly.subscribe(query);
      await anonymous.ended;
      assert.deepEqual(
        anonymous.errors.map((e) => (e as { extensions: { code: string } }).extensions.code),
        ['NOT_FOUND'],
      );
      await cookieOnly.dispose();
    } finally {
      await world.close();
    }
  });
});

describe('GraphQL subscriptions at shutdown', () => {
  it('closing the server closes every socket with 1001', async () => {
    const server = await startServer();
    const c = await raw(server.url);
    c.send(INIT);
    await c.next();
    c.send({
      type: 'subscribe',
      id: 's',
      payload: { query: 'subscription { eventCreated(user: "nobody") { id } }' },
    });
    await c.next(); // NOT_FOUND: no such user; the connection stays
    const closing = server.close();
    const { code } = await c.closed;
    await closing;
    assert.equal(code, 1001);
  });
});
