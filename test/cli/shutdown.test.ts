/**
 * `pulsegate serve` on SIGTERM/SIGINT, as a process manager sends them: the real CLI in a child
 * process, a request held in flight by sending its body slowly.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BIN, ROOT } from './run.js';

interface Served {
  child: ChildProcess;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function serve(extra: string[] = []): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-shutdown-'));
  dirs.push(dir);
  const child = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--port',
      '0',
      '--log-level',
      'info',
      '--database-url',
      `sqlite:${join(dir, 'pulsegate.db')}`,
      ...extra,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, PULSEGATE_RATE_LIMIT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
  });
  return { child, port, exited };
}

/** Sends a form POST's headers and the first part of its body; the rest is sent by `finish`. */
function holdRequest(port: number, body: string) {
  const socket: Socket = connect(port, '127.0.0.1');
  let response = '';
  socket.on('data', (chunk: Buffer) => (response += chunk.toString()));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  const half = Math.floor(body.length / 2);
  const sent = new Promise<void>((resolve) =>
    socket.on('connect', () => {
      socket.write(
        `POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
          `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n` +
          body.slice(0, half),
        () => resolve(),
      );
    }),
  );
  return {
    sent,
    finish: () => socket.write(body.slice(half)),
    response: async () => {
      await closed;
      return response;
    },
  };
}

function refused(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('serve: graceful shutdown', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`on ${signal}: refuses new connections, finishes the request in flight, exits 0`, async () => {
      const served = await serve();
      const held = holdRequest(served.port, 'grant_type=unheard_of&scope=read_user');
      await held.sent;
      await sleep(100);
      served.child.kill(signal);
      await sleep(300);
      assert.equal(served.child.exitCode, null, 'still running while a request is in flight');
      assert.equal(await refused(served.port), 'ECONNREFUSED');
      held.finish();
      const response = await held.response();
      assert.match(response, /^HTTP\/1\.1 400 Bad Request\r\n/);
      assert.ok(
        response.endsWith(
          '\r\n\r\n{"error":"unsupported_grant_type","error_description":"The authorization grant type is not supported by the authorization server."}',
        ),
        response,
      );
      const stoppedAt = Date.now();
      const { code, signal: killedBy, at } = await served.exited;
      assert.equal(killedBy, null);
      assert.equal(code, 0);
      assert.ok(at - stoppedAt < 3000, `exited ${at - stoppedAt} ms after the response`);
    });
  }

  it('cuts off a request still running after --shutdown-timeout and exits 1', async () => {
    const served = await serve(['--shutdown-timeout', '1']);
    const held = holdRequest(served.port, 'grant_type=client_credentials');
    await held.sent;
    await sleep(100);
    const sentAt = Date.now();
    served.child.kill('SIGTERM');
    const { code, at } = await served.exited;
    assert.equal(code, 1);
    const took = at - sentAt;
    assert.ok(took >= 900 && took < 4000, `exited after ${took} ms`);
    assert.equal(await held.response(), '');
  });

  it('exits 0 at once when nothing is in flight', async () => {
    const served = await serve();
    const res = await fetch(`http://127.0.0.1:${served.port}/-/health`);
    assert.equal(res.status, 200);
    const sentAt = Date.now();
    served.child.kill('SIGTERM');
    const { code, at } = await served.exited;
    assert.equal(code, 0);
    assert.ok(at - sentAt < 3000, `exited after ${at - sentAt} ms`);
  });
});
