import type { FastifyReply } from 'fastify';

/**
 * JSON with `Content-Type: application/json` exactly (no charset), as GitLab sends it: some
 * clients only parse that exact value. Fastify adds a charset to strings, not to Buffers.
 */
export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .send(Buffer.from(JSON.stringify(body), 'utf8'));
}

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
