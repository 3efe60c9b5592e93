/**
 * Start-up failures said the way an operator can act on: what failed, and what to change. The CLI
 * prints the message alone (no stack) and exits 1.
 */
import type { Config } from '../config.js';

export class StartupError extends Error {}

/** `app.listen` failed: the port taken, not ours to bind, or an address this machine lacks. */
export function explainListenError(error: unknown, config: Config): StartupError | null {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(
        `port ${config.port} is already in use (${where}): another pulsegate may be running there.` +
          ' Stop it, or choose another port with --port N (or PORT=N).',
      );
    case 'EACCES':
      return new StartupError(
        `not allowed to listen on ${where}: ports below 1024 need privileges.` +
          ' Choose another port with --port N (or PORT=N).',
      );
    case 'EADDRNOTAVAIL':
      return new StartupError(
        `cannot listen on ${where}: this machine has no address ${config.host}.` +
          ' Choose another with --host (or HOST), e.g. 127.0.0.1 or 0.0.0.0.',
      );
    default:
      return null;
  }
}
