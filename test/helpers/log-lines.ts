/**
 * A log stream for a test server (`startServer({ logStream })`) that keeps each JSON line the
 * server writes, parsed, in `lines` as it arrives.
 */
import { Writable } from 'node:stream';

export function logLines<Line = Record<string, unknown>>(): { stream: Writable; lines: Line[] } {
  const lines: Line[] = [];
  let pending = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const line of parts.filter(Boolean)) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  return { stream, lines };
}
