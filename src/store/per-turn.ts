/**
 * A read shared by its callers, each of which gets a read sent after it arrived. Used where no
 * cheap commit signal tells when a value changed (PostgreSQL): the head, the listing version, the
 * row counter.
 *
 * - Callers of one event-loop turn share one read: a query leaves only when the turn ends, so
 *   every one of them arrived before it was sent.
 * - At most one read is in flight. Callers arriving while it is (it was sent before they came, so
 *   it may predate a commit they have seen) share the next one, sent as soon as it returns.
 * - A caller may say when it arrived (`since`, as an HTTP request does when it comes in): any
 *   read numbered above the count sent by then was sent after it arrived, so the last read
 *   returned serves it at once, or the read in flight when that one was sent later. A request then
 *   reads once however many steps of it ask (its token, its user, its listing's mark), instead of
 *   once per step, each a round trip after the last.
 *
 * Under load that is one round trip per round-trip time for all of a process's requests instead
 * of one per request, at the cost of waiting for the read in flight first.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface SharedRead<T> {
  /** A read sent after the caller arrived (`since`), or after now outside one. */
  (): Promise<T>;
  /** A caller's stamp, taken when it arrives: the reads sent so far. */
  stamp(): ReadStamp;
  /**
   * Runs `work` as one caller that arrived at `stamp`: every read it asks for, however deep and
   * however many turns later, may be served by any read sent since (Node's AsyncLocalStorage
   * carries the stamp, so no signature between here and the request has to). Inside another
   * caller (a request's hydration), the outer, earlier arrival stands.
   */
  since<R>(stamp: ReadStamp, work: () => R): R;
}

/**
 * When a caller arrived. `ended` once it is answered: anything it left running (a timer, a
 * connection it opened) then reads as of now, not as of a moment long past.
 */
export interface ReadStamp {
  readonly sent: number;
  ended: boolean;
}

export function sharedPerTurn<T>(read: (seq: number) => Promise<T>): SharedRead<T> {
  /** The reads sent when the current caller arrived. */
  const arrivals = new AsyncLocalStorage<ReadStamp>();
  /** Reads sent so far; each read's number is the count once it is sent. */
  let sent = 0;
  /** The read callers of this turn join (not sent yet). */
  let joinable: Promise<T> | null = null;
  /** The read in flight and its number. */
  let flight: { seq: number; promise: Promise<T> } | null = null;
  /** The newest read that returned, and its number (reads return in order: one at a time). */
  let latest: { seq: number; value: T } | null = null;
  /** The next read, for callers that came while one was in flight. */
  let queued: { promise: Promise<T>; start: () => void } | null = null;

  const start = (): Promise<T> => {
    const seq = ++sent;
    const current = read(seq);
    joinable = current;
    flight = { seq, promise: current };
    setImmediate(() => {
      if (joinable === current) joinable = null;
    });
    const settled = () => {
      flight = null;
      if (queued) {
        const next = queued;
        queued = null;
        next.start();
      }
    };
    current.then((value) => {
      latest = { seq, value };
      settled();
    }, settled);
    return current;
  };

  const shared = (): Promise<T> => {
    const stamp = arrivals.getStore();
    const since = stamp && !stamp.ended ? stamp.sent : undefined;
    if (since !== undefined) {
      if (latest && latest.seq > since) return Promise.resolve(latest.value);
      if (flight && flight.seq > since) return flight.promise;
    }
    if (joinable) return joinable;
    if (!flight) return start();
    if (!queued) {
      let run!: () => void;
      const promise = new Promise<T>((resolve, reject) => {
        run = () => start().then(resolve, reject);
      });
      queued = { promise, start: run };
    }
    return queued.promise;
  };
  shared.stamp = (): ReadStamp => ({ sent, ended: false });
  shared.since = <R>(stamp: ReadStamp, work: () => R): R =>
    arrivals.getStore() === undefined ? arrivals.run(stamp, work) : work();
  return shared;
}
