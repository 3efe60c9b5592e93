/**
 * A webhook receiver on 127.0.0.1: records every request (headers and parsed body), answers with
 * scripted statuses, counts TCP connections (so a test can prove none was made).
 */
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  at: number;
}

export class Receiver {
  readonly received: Received[] = [];
  connections = 0;
  /** Statuses for the next requests, in order; then `answer`'s, or 200. */
  script: number[] = [];
  /** The status of a request once the script has run out (an outage that ends, say). */
  answer: (() => number) | null = null;
  /** How long each answer takes. */
  delayMs = 0;
  private waiters: { count: number; resolve: () => void }[] = [];
  private server: Server;
  url = '';

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        this.received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: JSON.parse(text) as Record<string, unknown>,
          at: performance.now(),
        });
        const status = this.script.shift() ?? this.answer?.() ?? 200;
        const answer = () => {
          response.writeHead(status, { 'content-type': 'text/plain' });
          response.end(status === 200 ? 'ok' : `failed with ${status}`);
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
        this.waiters = this.waiters.filter((w) => {
          if (this.received.length < w.count) return true;
          w.resolve();
          return false;
        });
      });
    });
    this.server.on('connection', () => this.connections++);
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    this.url = `http://127.0.0.1:${address.port}`;
    return this;
  }

  /** Resolves once `count` requests have arrived in all; rejects after `ms`. */
  waitFor(count: number, ms = 10_000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`expected ${count} requests, got ${this.received.length}`)),
        ms,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
