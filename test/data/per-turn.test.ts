/**
 * The shared read of store/per-turn.ts (PostgreSQL's head, listing version and row counter): every
 * caller gets a read sent after it arrived, and a busy process sends one read per round trip.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { sharedPerTurn } from '../../src/store/per-turn.js';

/**
 * A database value and reads of it that see the value as it was when sent, each answered only when
 * the test says so (`answer()`): no timer decides which caller arrives while a read is in flight.
 */
function fakeDatabase() {
  const db = { value: 0, reads: 0 };
  const pending: Array<() => void> = [];
  const read = () => {
    db.reads++;
    const seen = db.value;
    return new Promise<number>((resolve) => pending.push(() => resolve(seen)));
  };
  /** Answers the oldest read in flight, and lets its callers and any follow-up proceed. */
  const answer = async () => {
    pending.shift()!();
    await nextTurn();
  };
  return { db, read, answer };
}

describe('a read shared by its callers (store/per-turn.ts)', () => {
  it('callers of one event-loop turn share one read', async () => {
    const { db, read, answer } = fakeDatabase();
    const shared = sharedPerTurn(read);
    const all = Promise.all([shared(), shared(), shared()]);
    await answer();
    assert.deepEqual(await all, [0, 0, 0]);
    assert.equal(db.reads, 1);
  });

  it('a caller arriving while a read is in flight never gets that read: it sees a commit made before it came', async () => {
    const { db, read, answer } = fakeDatabase();
    const shared = sharedPerTurn(read);
    const first = shared();
    await nextTurn();
    db.value = 1; // committed after the first read was sent, before the second caller came
    const second = shared();
    await answer();
    assert.equal(await first, 0);
    await answer();
    assert.equal(await second, 1);
  });

  it('callers arriving during one read share the next one: one read per round trip', async () => {
    const { db, read, answer } = fakeDatabase();
    const shared = sharedPerTurn(read);
    const first = shared();
    const later: Promise<number>[] = [];
    for (let i = 0; i < 5; i++) {
      await nextTurn();
      db.value = i + 1;
      later.push(shared());
    }
    await answer();
    assert.equal(await first, 0);
    await answer();
    // The follow-up was sent after the last of them arrived: it sees the last commit.
    assert.deepEqual(await Promise.all(later), [5, 5, 5, 5, 5]);
    assert.equal(db.reads, 2);
  });

  it('a failed read fails its callers only; the next caller reads again', async () => {
    const answers: Array<(ok: boolean) => void> = [];
    let reads = 0;
    const shared = sharedPerTurn(() => {
      reads++;
      return new Promise<number>((resolve, reject) =>
        answers.push((ok) => (ok ? resolve(7) : reject(new Error('connection lost')))),
      );
    });
    const first = shared();
    await nextTurn();
    const queued = shared();
    answers.shift()!(false);
    await assert.rejects(first, /connection lost/);
    await nextTurn();
    answers.shift()!(true);
    assert.equal(await queued, 7);
    await nextTurn();
    const third = shared();
    answers.shift()!(true);
    assert.equal(await third, 7);
    assert.equal(reads, 3);
  });
});
