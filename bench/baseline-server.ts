/**
 * The baseline: a bare Fastify route that returns precomputed JSON bytes (the exact body of the
 * route under test) with the same Content-Type. It is the ceiling a real route can approach.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [bodyFile, portArg] = process.argv.slice(2);
if (!bodyFile || !portArg) {
  console.error('usage: baseline-server <body.json> <port>');
  process.exit(2);
}
const body = readFileSync(bodyFile);
const app = Fastify({ logger: false });
app.get('/baseline', async (_request, reply) =>
  reply.header('content-type', 'application/json').send(body),
);
app.post('/baseline', async (_request, reply) =>
  reply.header('content-type', 'application/json').send(body),
);
await app.listen({ host: '127.0.0.1', port: Number(portArg) });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
