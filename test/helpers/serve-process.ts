/**
 * `pulsegate serve` as a child process over a test database, for what only separate processes
 * show: two servers sharing one PostgreSQL database, or a server started again after a crash.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { BIN, ROOT } from '../cli/run.js';

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Waits until a server answers at `url` (its worker starts with it); gives up at once when
 * `running` says its process is gone.
 */
export async function ready(url: string, running: () => boolean = () => true): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (!running()) throw new Error(`the server for ${url} exited before it answered`);
    try {
      const res = await fetch(`${url}/-/health`);
      await res.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`no server at ${url}`);
}

/**
 * Starts `pulsegate serve --database-url <databaseUrl>` on a free port with `args` added, its log
 * silenced and `env` added to this process's environment; does not wait for it (see `ready`).
 * `root` is the checkout whose bin/pulsegate.js runs (this one by default).
 */
export async function spawnServe(
  databaseUrl: string,
  args: string[] = [],
  env: Record<string, string> = {},
  root: string = ROOT,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const bin = root === ROOT ? BIN : join(root, 'bin/pulsegate.js');
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--database-url', databaseUrl, '--port', String(port), ...args],
    {
      cwd: root,
      // Fixtures are dated from 1970 on: retention stays off unless a test turns it on.
      env: { ...process.env, LOG_LEVEL: 'silent', PULSEGATE_RETAIN_EVENTS: '0', ...env },
      stdio: 'ignore',
    },
  );
  return { child, url: `http://127.0.0.1:${port}` };
}
