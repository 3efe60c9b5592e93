/**
 * The shared read of store/per-turn.ts (PostgreSQL's head, listing version and row counter): every
 * caller gets a read sent after it arrived, a busy process sends one read per round trip, and the
 * steps of one request (stamped when it arrived) share one read.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type ReadStamp, sharedPerTurn } from '../../src/store/per-turn.js';

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
  /** Reads sent and not answered yet. */
  const waiting = () => pending.length;
  return { db, read, answer, waiting };
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

  it('a caller that says when it arrived is served at once by the last read sent after that', async () => {
    const { db, read, answer } = fakeDatabase();
    const shared = sharedPerTurn(read);
    const arrived = shared.stamp();
    await nextTurn();
    const first = shared.since(arrived, shared);
    await answer();
    assert.equal(await first, 0);
    db.value = 1; // committed after the read was sent, so after the caller arrived: not owed to it
    // A later step of the same request (its user, its listing's mark): no second round trip.
    assert.equal(await shared.since(arrived, shared), 0);
    assert.equal(db.reads, 1);
    // Without a stamp, or for a caller stamped now, "now" is after the read: it reads again.
    const fresh = shared.since(shared.stamp(), shared);
    await answer();
    assert.equal(await fresh, 1);
    assert.equal(db.reads, 2);
  });

  it('once its caller is answered, a stamp no longer holds: what it left running reads as of now', async () => {
    const { db, read, answer } = fakeDatabase();
    const shared = sharedPerTurn(read);
    const stamp = shared.stamp();
    // Work the request started that goes on after its answer was sent (its context goes with it).
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    const afterwards = shared.since(stamp, async () => {
      await paused;
      return shared();
    });
    await nextTurn();
    const first = shared.since(stamp, shared);
    await answer();
    assert.equal(await first, 0);
    db.value = 1;
    stamp.ended = true;
    resume();
    await nextTurn();
    await answer();
    assert.equal(await afterwards, 1, 'not the reading its request was served by');
    assert.equal(db.reads, 2);
  });

  it('a read sent before a caller arrived never serves it, returned or in flight', async () => {
    const { db, read, answer } = fakeDatabase();
    const shared = sharedPerTurn(read);
    const first = shared();
    await nextTurn();
    db.value = 1; // committed after the first read was sent, before the caller came
    const arrived = shared.stamp();
    const inFlight = shared.since(arrived, shared);
    await answer();
    assert.equal(await first, 0);
    await answer();
    assert.equal(await inFlight, 1, 'not the read in flight when it came');
    db.value = 2;
    const arrivedLater = shared.stamp();
    const returned = shared.since(arrivedLater, shared);
    await answer();
    assert.equal(await returned, 2, 'not the read that had returned when it came');
    assert.equal(db.reads, 3);
  });

  it('a caller joins the read in flight when that read was sent after it arrived', async () => {
    const { db, read, answer } = fakeDatabase();
    const shared = sharedPerTurn(read);
    const arrived = shared.stamp();
    await nextTurn();
    const sentLater = shared(); // another request's read, sent after ours arrived
    await nextTurn();
    const ours = shared.since(arrived, shared);
    await answer();
    assert.deepEqual(await Promise.all([sentLater, ours]), [0, 0]);
    assert.equal(db.reads, 1, 'it waits for that read rather than the next one');
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

  it('in any interleaving, every caller sees every commit made before it arrived, and steps of a request share reads', async () => {
    // A commit is seen by callers only from the next turn on (its acknowledgement is I/O); a
    // request is stamped when it arrives and asks again in later steps, as http/read-context.ts does.
    const op = fc.oneof(
      fc.constant({ kind: 'commit' as const }),
      fc.constant({ kind: 'answer' as const }),
      fc.constant({ kind: 'turn' as const }),
      fc.constant({ kind: 'call' as const }),
      fc.constant({ kind: 'arrive' as const }),
      fc.nat(7).map((request) => ({ kind: 'step' as const, request })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const { db, read, answer, waiting } = fakeDatabase();
        const shared = sharedPerTurn(read);
        const requests: Array<{ stamp: ReadStamp; seen: number }> = [];
        const checks: Array<{ value: Promise<number>; seen: number }> = [];
        const answerIfAny = () => (waiting() > 0 ? answer() : nextTurn());
        for (const o of ops) {
          if (o.kind === 'commit') {
            db.value++;
            await nextTurn();
          } else if (o.kind === 'answer') {
            await answerIfAny();
          } else if (o.kind === 'turn') {
            await nextTurn();
          } else if (o.kind === 'call') {
            checks.push({ value: shared(), seen: db.value });
          } else if (o.kind === 'arrive') {
            requests.push({ stamp: shared.stamp(), seen: db.value });
            const r = requests.at(-1)!;
            checks.push({ value: shared.since(r.stamp, shared), seen: r.seen });
          } else if (requests.length > 0) {
            const r = requests[o.request % requests.length]!;
            checks.push({ value: shared.since(r.stamp, shared), seen: r.seen });
          }
        }
        // Answer everything still in flight or queued, then check every caller.
        for (let i = 0; i < 2 * ops.length + 2; i++) await answerIfAny();
        for (const { value, seen } of checks) assert.ok((await value) >= seen);
        // Never more reads than callers: sharing only ever saves reads.
        assert.ok(db.reads <= checks.length);
      }),
      { numRuns: 300 },
    );
  });
});
