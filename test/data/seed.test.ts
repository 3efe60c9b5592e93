import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeedService } from '../../src/data/seed.js';
import { systemClock } from '../../src/services/clock.js';
import { type Store, openStore } from '../../src/store/store.js';
import { exportText } from '../helpers/export-text.js';
import { DIALECTS, createTestDatabase } from '../helpers/server.js';

async function withStore<T>(dialect: 'sqlite' | 'postgres', run: (store: Store) => Promise<T>) {
  const database = await createTestDatabase(dialect);
  const store = await openStore(database.url);
  try {
    return await run(store);
  } finally {
    await store.close();
    await database.drop();
  }
}

for (const dialect of DIALECTS) {
  describe(`synthetic seed (${dialect})`, () => {
    it('produces exactly N events, reproducibly, and appends after existing ids', async () => {
      const options = { events: 1234, users: 7, projects: 3 };
      const [first, second] = await Promise.all(
        [0, 1].map(() =>
          withStore(dialect, async (store) => {
            const seed = new SeedService(store, systemClock);
            const summary = await seed.seedSynthetic(options);
            assert.equal(summary.counts.event, 1234);
            assert.equal(summary.counts.user, 7);
            assert.equal(summary.counts.project, 3);
            const text = await exportText(store);
            const again = await seed.seedSynthetic({ events: 10, users: 2, projects: 1 });
            assert.equal(again.counts.event, 10);
            const n = await store.db.selectFrom('events').select((eb) => eb.fn.max('id').as('m')).executeTakeFirstOrThrow();
            assert.equal(Number(n.m), 1244);
            return text;
          }),
        ),
      );
      assert.equal(first!.split('\n').filter((l) => l.includes('"kind":"event"')).length, 1234);
      assert.equal(first, second, 'the same options give the same data');
    });
  });
}
