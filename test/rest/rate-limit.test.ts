/**
 * The API rate limit (REST and GraphQL, src/http/rate-limit.ts): one budget per authenticated
 * user, or per address for everything else, so made-up credentials buy no extra requests; counted
 * in the database, so every process over it spends the same budget.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/server.js';
import { type Store, openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const LIMIT = 5;

for (const dialect of DIALECTS) {
  describe(`API rate limit keys (${dialect})`, () => {
    let server: TestServer;
    const tokens: Record<'alice' | 'alice2' | 'bob', string> = { alice: '', alice2: '', bob: '' };

    before(async () => {
      server = await startServer({
        dialect,
        config: { rateLimit: LIMIT },
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          const bob = await f.user('bob');
          tokens.alice = await f.token(alice.id, ['api']);
          tokens.alice2 = await f.token(alice.id, ['read_api']);
          tokens.bob = await f.token(bob.id, ['api']);
        },
      });
    });
    after(() => server.close());

    const rest = async (headers: Record<string, string>, query = '') =>
      (await fetch(`${server.url}/api/v4/users/alice/events${query}`, { headers })).status;

    it('made-up credentials share the address budget: Negotiate headers, unknown tokens', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push(await rest({ authorization: `Negotiate r${i}` }));
      statuses.push(await rest({ authorization: 'Bearer made-up-0' }));
      statuses.push(await rest({ 'private-token': 'glpat-made-up-1' }));
      statuses.push(await rest({}, '?private_token=glpat-made-up-2'));
      statuses.push(await rest({ authorization: 'Negotiate r9' }));
      statuses.push(await rest({}));
      assert.deepEqual(statuses, [200, 200, 200, 200, 401, 429, 429, 429, 429]);
    });

    it('a verified token has its user’s budget, whichever of the user’s tokens is used', async () => {
      // The address is spent (above); the users are not.
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push(await rest({ 'private-token': tokens.alice }));
      statuses.push(await rest({ authorization: `Bearer ${tokens.alice2}` }));
      statuses.push(await rest({}, `?private_token=${tokens.alice2}`));
      statuses.push(await rest({ 'private-token': tokens.alice2 }));
      statuses.push(await rest({ 'private-token': tokens.alice }));
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
      assert.equal(await rest({ 'private-token': tokens.bob }), 200);
    });

    it('GraphQL keys its budget the same way', async () => {
      const own = await startServer({
        dialect,
        config: { rateLimit: LIMIT },
        seed: async (store) => {
          const f = new Fixtures(store);
          tokens.bob = await f.token((await f.user('bob')).id, ['api']);
        },
      });
      try {
        const graphql = async (headers: Record<string, string>) =>
          (
            await fetch(`${own.url}/api/graphql`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...headers },
              body: '{"query":"{ currentUser { username } }"}',
            })
          ).status;
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++)
          statuses.push(await graphql({ authorization: `Negotiate g${i}` }));
        statuses.push(await graphql({ 'private-token': 'glpat-made-up' }));
        statuses.push(await graphql({ authorization: 'Negotiate g9' }));
        assert.deepEqual(statuses, [200, 200, 200, 200, 401, 429]);
        for (let i = 0; i < LIMIT + 1; i++)
          statuses.push(await graphql({ 'private-token': tokens.bob }));
        assert.deepEqual(statuses.slice(6), [200, 200, 200, 200, 200, 429]);
      } finally {
        await own.close();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`API rate limit shared by two processes over one database (${dialect})`, () => {
    let first: TestServer;
    let second: FastifyInstance;
    let secondStore: Store;
    let secondUrl: string;
    let token = '';
    let other = '';

    before(async () => {
      first = await startServer({
        dialect,
        config: { rateLimit: LIMIT },
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          token = await f.token(alice.id, ['api']);
          other = await f.token((await f.user('bob')).id, ['api']);
        },
      });
      // A second server over the same database (SQLite: the same file), with its own connection
      // and services, as a second process would have.
      secondStore = await openStore(first.config.databaseUrl);
      ({ app: second } = await buildServer({
        config: first.config,
        store: secondStore,
        clock: first.clock,
      }));
      await second.listen({ host: '127.0.0.1', port: 0 });
      const address = second.server.address() as AddressInfo;
      secondUrl = `http://127.0.0.1:${address.port}`;
    });
    after(async () => {
      await second.close();
      await secondStore.close();
      await first.close();
    });

    const urls = () => [first.url, secondUrl];

    it('one token over both: one budget, with the headers and bodies clients read', async () => {
      const replies = [];
      for (let i = 0; i < 2 * LIMIT; i++) {
        const res = await fetch(`${urls()[i % 2]}/api/v4/users/alice/events`, {
          headers: { 'private-token': token },
        });
        replies.push({ status: res.status, headers: res.headers, text: await res.text() });
      }
      assert.deepEqual(
        replies.map((r) => r.status),
        [...Array<number>(LIMIT).fill(200), ...Array<number>(LIMIT).fill(429)],
      );
      replies.forEach((reply, i) => {
        assert.equal(reply.headers.get('x-ratelimit-limit'), String(LIMIT));
        assert.equal(
          reply.headers.get('x-ratelimit-remaining'),
          String(Math.max(0, LIMIT - i - 1)),
        );
        assert.equal(reply.headers.get('x-ratelimit-reset'), '60');
        assert.equal(reply.headers.get('retry-after'), reply.status === 429 ? '60' : null);
      });
      assert.equal(replies.at(-1)!.headers.get('content-type'), 'application/json');
      assert.deepEqual(JSON.parse(replies.at(-1)!.text), {
        error: '429 Too Many Requests',
        message: '429 Too Many Requests',
      });
    });

    it('REST and GraphQL on either process spend the same address budget', async () => {
      const graphql = (base: string) =>
        fetch(`${base}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Negotiate x' },
          body: '{"query":"{ currentUser { username } }"}',
        });
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT; i++) {
        const res =
          i % 2 === 0
            ? await fetch(`${urls()[i % 2]}/api/v4/users/alice/events`)
            : await graphql(urls()[1]!);
        statuses.push(res.status);
      }
      const limited = await graphql(first.url);
      statuses.push(limited.status, (await fetch(`${secondUrl}/api/v4/users/alice/events`)).status);
      assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(200), 429, 429]);
      assert.equal(limited.headers.get('retry-after'), '60');
      assert.equal(limited.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.deepEqual(await limited.json(), {
        errors: [
          {
            message: `Rate limit exceeded: ${LIMIT} requests per minute. Retry later.`,
            extensions: { code: 'RATE_LIMITED' },
          },
        ],
      });
    });

    it('a parallel burst over both processes gets exactly the limit', async () => {
      first.clock.advance(60_000);
      const statuses = await Promise.all(
        Array.from({ length: 4 * LIMIT }, async (_, i) => {
          const res = await fetch(`${urls()[i % 2]}/api/v4/users/bob/events`, {
            headers: { 'private-token': other },
          });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      assert.equal(statuses.filter((s) => s === 200).length, LIMIT, String(statuses));
      assert.equal(statuses.filter((s) => s === 429).length, 3 * LIMIT, String(statuses));
    });

    it('the window ends on the clock, for both processes', async () => {
      first.clock.advance(60_000);
      for (const base of urls()) {
        const res = await fetch(`${base}/api/v4/users/alice/events`, {
          headers: { 'private-token': token },
        });
        assert.equal(res.status, 200);
      }
    });

    if (dialect === 'sqlite') {
      it('counting requests leaves the database file alone (caches keyed on its version stay)', async () => {
        first.clock.advance(60_000);
        const settle = () => new Promise((resolve) => setImmediate(resolve));
        await settle();
        const version = first.store.dataVersion();
        for (const base of urls()) {
          const res = await fetch(`${base}/api/v4/users/alice/events`);
          assert.equal(res.status, 200);
        }
        await settle();
        assert.equal(first.store.dataVersion(), version);
      });
    }
  });
}
