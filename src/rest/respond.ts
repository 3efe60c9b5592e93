import type { FastifyReply } from 'fastify';

/** JSON bytes of a list, remembered per list object: a cached page is serialized only once. */
const serialized = new WeakMap<readonly unknown[], Buffer>();

export function sendJsonList<T>(
  reply: FastifyReply,
  items: readonly T[],
  present: (item: T) => unknown,
): FastifyReply {
  let body = serialized.get(items);
  if (!body) {
    body = Buffer.from(JSON.stringify(items.map(present)), 'utf8');
    serialized.set(items, body);
  }
  return reply.code(200).header('content-type', 'application/json').send(body);
}
