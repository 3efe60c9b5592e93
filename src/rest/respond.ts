/**
 * A list presenter that also remembers each item's JSON bytes, per item object, when `remember`
 * (the page cache is on): pages a write pushed down share most of their items with the pages they
 * replace, so serializing them again costs the new items only. Without the page cache every item
 * is new, and a WeakMap entry per short-lived item would only add garbage-collection work. The
 * presenter must be created once (per route), not per request; what a request derives once for
 * all its items (the configuration's links) it passes as `context`.
 */
export function itemJson<T extends object, C>(
  present: (item: T, context: C) => unknown,
  remember: boolean,
): (item: T, context: C) => Buffer {
  if (!remember) {
    return (item, context) => Buffer.from(JSON.stringify(present(item, context)), 'utf8');
  }
  const known = new WeakMap<T, Buffer>();
  return (item, context) => {
    let json = known.get(item);
    if (json === undefined) {
      json = Buffer.from(JSON.stringify(present(item, context)), 'utf8');
      known.set(item, json);
    }
    return json;
  };
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/**
 * A JSON array of the items' bytes. The array is copied together from each item's bytes rather
 * than joined as a string and encoded again: a page a write pushed down is new bytes around
 * mostly remembered items, and encoding the joined string was most of what it cost (22 µs against
 * 4 µs for 20 events, 90 against 13 for 100, measured in one loop).
 */
export function jsonList<T>(items: readonly T[], json: (item: T) => Buffer): Buffer {
  const parts: Buffer[] = [OPEN];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(json(items[i]!));
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}
