/** Runs `pulsegate …` as a child process, as a user would from the repository root. */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/pulsegate.js', import.meta.url));

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `pulsegate …`; one still running after `timeoutMs` is killed (its code is then null). */
export function pulsegate(
  args: string[],
  input?: string,
  env: Record<string, string> = {},
  timeoutMs?: number,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = timeoutMs ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : undefined;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

/**
 * `pulsegate … | head -c <bytes>`: reads that much of standard output, then closes the pipe as
 * head does, and waits for the process to end.
 */
export function pulsegateIntoHead(args: string[], bytes: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.length >= bytes) child.stdout.destroy();
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface Serving {
  child: ChildProcess;
  port: number;
  /** Standard output and error so far. */
  output(): { stdout: string; stderr: string };
  exited: Promise<Run>;
  /** SIGTERM, then the exit. */
  stop(): Promise<Run>;
}

/**
 * `pulsegate serve …` in a child process, resolved once it listens (its log says so on stdout,
 * whatever the log format) and once `ready` holds for its output, if given.
 */
export async function serving(
  args: string[],
  env: Record<string, string> = {},
  ready: (stdout: string) => boolean = () => true,
): Promise<Serving> {
  const child = spawn(process.execPath, [BIN, 'serve', '--log-level', 'info', ...args], {
    cwd: ROOT,
    env: { ...process.env, PULSEGATE_RATE_LIMIT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<Run>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (match && ready(stdout)) resolve(Number(match[1]));
    });
    void exited.then((run) =>
      reject(new Error(`serve exited early (${run.code}): ${run.stdout}${run.stderr}`)),
    );
  });
  return {
    child,
    port,
    output: () => ({ stdout, stderr }),
    exited,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
