import type { FastifyReply } from 'fastify';

/** JSON bytes of a list, remembered per list object: a cached page is serialized only once. */
const serialized = new WeakMap<readonly unknown[], Buffer>();

/**
 * A list presenter that also remembers each item's JSON, per item object, when `remember` (the
 * page cache is on): pages a write pushed down share most of their items with the pages they
 * replace, so serializing them again costs the new items only. Without the page cache every item
 * is new, and a WeakMap entry per short-lived item would only add garbage-collection work. The
 * presenter must be created once (per route), not per request.
 */
export function itemJson<T extends object>(
  present: (item: T) => unknown,
  remember: boolean,
): (item: T) => string {
  if (!remember) return (item) => JSON.stringify(present(item));
  const known = new WeakMap<T, string>();
  return (item) => {
    let json = known.get(item);
    if (json === undefined) {
      json = JSON.stringify(present(item));
      known.set(item, json);
    }
    return json;
  };
}

export function sendJsonList<T>(
  reply: FastifyReply,
  items: readonly T[],
  json: (item: T) => string,
): FastifyReply {
  let body = serialized.get(items);
  if (!body) {
    body = Buffer.from(`[${items.map(json).join(',')}]`, 'utf8');
    serialized.set(items, body);
  }
  return reply.code(200).header('content-type', 'application/json').send(body);
}
