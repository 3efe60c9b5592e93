/**
 * A read shared by its callers, each served by a read sent after it arrived: one per event-loop
 * turn, at most one in flight, and a caller stamped on arrival (`since`) is served by any read sent
 * since (docs/listing-caches.md, "One reading per request").
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface SharedRead<T> {
  /** A read sent after the caller arrived (`since`), or after now outside one. */
  (): Promise<T>;
  /** A caller's stamp, taken when it arrives: the reads sent so far. */
  stamp(): ReadStamp;
  /** Runs `work` as a caller that arrived at `stamp`; inside another caller, the outer stands. */
  since<R>(stamp: ReadStamp, work: () => R): R;
}

/** When a caller arrived; `ended` once answered, so what it left running reads as of now. */
export interface ReadStamp {
  readonly sent: number;
  ended: boolean;
}

export function sharedPerTurn<T>(read: (seq: number) => Promise<T>): SharedRead<T> {
  const arrivals = new AsyncLocalStorage<ReadStamp>();
  let sent = 0;
  /** The read callers of this turn join. */
  let joinable: Promise<T> | null = null;
  let flight: { seq: number; promise: Promise<T> } | null = null;
  /** The newest read that returned (reads return in order: one at a time). */
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
