/**
 * Failed-attempt counters live in the database: two pulsegate processes over one database share
 * one budget, so running more processes does not give an attacker more guesses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/server.js';
import { THROTTLE_POLICIES } from '../../src/services/accounts/throttle.js';
import { type Store, openStore } from '../../src/store/store.js';
import { DIALECTS } from '../helpers/server.js';
import { type OAuthWorld, PASSWORD, startOAuthServer, addUser } from './support.js';

for (const dialect of DIALECTS) {
  describe(`throttling across processes (${dialect})`, () => {
    let world: OAuthWorld;
    let second: FastifyInstance;
    let secondStore: Store;

    before(async () => {
      world = await startOAuthServer({ dialect });
      // A second server over the same database, with its own connection and services, as a
      // second process would have.
      secondStore = await openStore(world.server.config.databaseUrl);
      ({ app: second } = await buildServer({
        config: world.server.config,
        store: secondStore,
        clock: world.server.clock,
      }));
    });
    after(async () => {
      await second.close();
      await secondStore.close();
      await world.close();
    });

    const grant = (app: FastifyInstance, password: string, username = 'bob') =>
      app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { grant_type: 'password', username, password },
      });

    it('failures counted by one server lock the account on the other', async () => {
      const { limit } = THROTTLE_POLICIES.account;
      for (let i = 0; i < limit; i++) {
        const app = i % 2 === 0 ? world.server.app : second;
        assert.equal((await grant(app, `wrong-${i}`)).statusCode, 400);
      }
      for (const app of [world.server.app, second]) {
        const locked = await grant(app, PASSWORD);
        assert.equal(locked.statusCode, 429);
        assert.match(locked.headers['retry-after'] as string, /^\d+$/);
      }
      world.server.clock.advance(THROTTLE_POLICIES.account.windowMs);
      assert.equal((await grant(second, PASSWORD)).statusCode, 200);
    });

    it('B.12: 60 parallel guesses spread over both servers, the last right: the limit evaluated', async () => {
      world.server.clock.advance(THROTTLE_POLICIES.address.windowMs);
      const { limit } = THROTTLE_POLICIES.account;
      await addUser(world, 'carol');
      const statuses = (
        await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            grant(i % 2 ? second : world.server.app, i === 59 ? PASSWORD : `wrong-${i}`, 'carol'),
          ),
        )
      ).map((r) => r.statusCode);
      const count = (status: number) => statuses.filter((s) => s === status).length;
      assert.deepEqual(
        { evaluated: count(400) + count(200), refused: count(429) },
        { evaluated: limit, refused: 60 - limit },
        String(statuses),
      );
      assert.equal(count(200), 0, 'the right password came last, after the account locked');
    });
  });
}
