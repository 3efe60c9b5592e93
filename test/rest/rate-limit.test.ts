/**
 * The API rate limit (REST and GraphQL, src/http/rate-limit.ts): one budget per authenticated
 * user, or per address for everything else, so made-up credentials buy no extra requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
