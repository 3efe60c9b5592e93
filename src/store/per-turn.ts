/**
 * A read shared by its callers, each of which gets a read sent after it arrived. Used where no
 * cheap commit signal tells when a value changed (PostgreSQL): the head, the listing version, the
 * row counter.
 *
 * - Callers of one event-loop turn share one read: a query leaves only when the turn ends, so
 *   every one of them arrived before it was sent.
 * - At most one read is in flight. Callers arriving while it is (it was sent before they came, so
 *   it may predate a commit they have seen) share the next one, sent as soon as it returns.
 *
 * Under load that is one round trip per round-trip time for all of a process's requests instead
 * of one per request, at the cost of waiting for the read in flight first.
 */
export function sharedPerTurn<T>(read: () => Promise<T>): () => Promise<T> {
  /** The read callers of this turn join (not sent yet). */
  let joinable: Promise<T> | null = null;
  let inFlight = false;
  /** The next read, for callers that came while one was in flight. */
  let queued: { promise: Promise<T>; start: () => void } | null = null;

  const start = (): Promise<T> => {
    const current = read();
    joinable = current;
    inFlight = true;
    setImmediate(() => {
      if (joinable === current) joinable = null;
    });
    const settled = () => {
      inFlight = false;
      if (queued) {
        const next = queued;
        queued = null;
        next.start();
      }
    };
    current.then(settled, settled);
    return current;
  };

  return () => {
    if (joinable) return joinable;
    if (!inFlight) return start();
    if (!queued) {
      let run!: () => void;
      const promise = new Promise<T>((resolve, reject) => {
        run = () => start().then(resolve, reject);
      });
      queued = { promise, start: run };
    }
    return queued.promise;
  };
}
