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
