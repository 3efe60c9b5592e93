/**
 * One read per event-loop turn, shared by the callers of that turn. Every one of them arrived
 * before the read was sent (a query leaves only when the turn ends), so none is answered from a
 * read older than itself; a caller of a later turn starts a new read. Used where no cheap commit
 * signal tells when a value changed (PostgreSQL): the head, the listing version, the row counter.
 */
export function sharedPerTurn<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    if (pending) return pending;
    const current = read();
    pending = current;
    setImmediate(() => {
      if (pending === current) pending = null;
    });
    return current;
  };
}
