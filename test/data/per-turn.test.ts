/**
 * The shared read of store/per-turn.ts (PostgreSQL's head, listing version and row counter): every
 * caller gets a read sent after it arrived, and a busy process sends one read per round trip.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { sharedPerTurn } from '../../src/store/per-turn.js';

/** A database value and a read of it that sees the value as it was when sent, 5 ms later. */
function fakeDatabase() {
  const db = { value: 0, reads: 0 };
  const read = () => {
    db.reads++;
    const seen = db.value;
    return new Promise<number>((resolve) => setTimeout(() => resolve(seen), 5));
  };
  return { db, read };
}

describe('a read shared by its callers (store/per-turn.ts)', () => {
  it('callers of one event-loop turn share one read', async () => {
    const { db, read } = fakeDatabase();
    const shared = sharedPerTurn(read);
    const answers = await Promise.all([shared(), shared(), shared()]);
    assert.deepEqual(answers, [0, 0, 0]);
    assert.equal(db.reads, 1);
  });

  it('a caller arriving while a read is in flight never gets that read: it sees a commit made before it came', async () => {
    const { db, read } = fakeDatabase();
    const shared = sharedPerTurn(read);
    const first = shared();
    await nextTurn();
    db.value = 1; // committed after the first read was sent, before the second caller came
    const second = shared();
    assert.equal(await first, 0);
    assert.equal(await second, 1);
  });

  it('callers arriving during one read share the next one: one read per round trip', async () => {
    const { db, read } = fakeDatabase();
    const shared = sharedPerTurn(read);
    const first = shared();
    const later: Promise<number>[] = [];
    for (let i = 0; i < 5; i++) {
      await nextTurn();
      db.value = i + 1;
      later.push(shared());
    }
    assert.equal(await first, 0);
    // The follow-up was sent after the last of them arrived: it sees the last commit.
    assert.deepEqual(await Promise.all(later), [5, 5, 5, 5, 5]);
    assert.equal(db.reads, 2);
  });

  it('a failed read fails its callers only; the next caller reads again', async () => {
    let fail = true;
    let reads = 0;
    const shared = sharedPerTurn(async () => {
      reads++;
      const failing = fail;
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (failing) throw new Error('connection lost');
      return 7;
    });
    const first = shared();
    await nextTurn();
    const queued = shared();
    fail = false;
    await assert.rejects(first, /connection lost/);
    assert.equal(await queued, 7);
    await nextTurn();
    assert.equal(await shared(), 7);
    assert.equal(reads, 3);
  });
});
