/**
 * The API request counters count one turn's hits together (store/request-counters.ts): one
 * addition per key and turn, each hit its own number. Two stores over one database stand for two
 * processes.
 *
 * Catches: a batch handing every request the batch's total (or the same number twice), a batch
 * mixing keys, a window that no longer starts over, and counting one addition per hit (no batching).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TurnBatches } from '../../src/store/request-counters.js';
import { type Store, openStore } from '../../src/store/store.js';
import { DIALECTS, type TestDatabase, createTestDatabase } from '../helpers/server.js';

const WINDOW = 60_000;

for (const dialect of DIALECTS) {
  describe(`request counters count a turn's hits together (${dialect})`, () => {
    let database: TestDatabase;
    let one: Store;
    let two: Store;

    before(async () => {
      database = await createTestDatabase(dialect);
      one = await openStore(database.url);
      two = await openStore(database.url);
    });
    after(async () => {
      await one.close();
      await two.close();
      await database.drop();
    });

    it('a burst in one turn: one addition per key, every hit its own number, in order', async () => {
      const counters = one.requestCounters as TurnBatches;
      const before = counters.additions;
      const now = 1_000_000;
      const hits = await Promise.all(
        Array.from({ length: 60 }, (_, i) => counters.hit(i % 3 === 0 ? 'b' : 'a', now, WINDOW)),
      );
      assert.equal(counters.additions - before, 2);
      const a = hits.filter((_, i) => i % 3 !== 0).map((h) => h.hits);
      const b = hits.filter((_, i) => i % 3 === 0).map((h) => h.hits);
      assert.deepEqual(a, Array.from({ length: 40 }, (_, i) => i + 1));
      assert.deepEqual(b, Array.from({ length: 20 }, (_, i) => i + 1));
      assert.ok(hits.every((h) => h.windowStart === now));
    });

    it('two processes bursting on one key share one count: no number twice, none skipped', async () => {
      const now = 2_000_000;
      const results = await Promise.all(
        Array.from({ length: 80 }, (_, i) =>
          (i % 2 ? one : two).requestCounters.hit('shared', now, WINDOW),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.hits).sort((x, y) => x - y),
        Array.from({ length: 80 }, (_, i) => i + 1),
      );
    });

    it('a window that ended starts over at the batch, and a refund gives one back', async () => {
      const later = 2_000_000 + WINDOW;
      const hits = await Promise.all(
        Array.from({ length: 5 }, () => one.requestCounters.hit('shared', later, WINDOW)),
      );
      assert.deepEqual(
        hits.map((h) => [h.hits, h.windowStart]),
        [1, 2, 3, 4, 5].map((n) => [n, later]),
      );
      await two.requestCounters.refund('shared', later + 1, WINDOW);
      const next = await two.requestCounters.hit('shared', later + 2, WINDOW);
      assert.deepEqual(next, { hits: 5, windowStart: later });
    });
  });
}
