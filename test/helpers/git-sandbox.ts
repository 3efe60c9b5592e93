/**
 * A temporary home for running the real `git`: alice's identity, `main` as the default branch and
 * none of the machine's or the user's git configuration.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new directory (the caller removes it) and the environment git runs in there. */
export function gitSandbox(
  prefix: string,
  extra: NodeJS.ProcessEnv = {},
): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const gitconfig = join(dir, 'gitconfig');
  writeFileSync(
    gitconfig,
    '[user]\n\tname = Alice Moreau\n\temail = alice@example.com\n[init]\n\tdefaultBranch = main\n',
  );
  return {
    dir,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: gitconfig,
      NODE_ENV: 'test',
      ...extra,
    },
  };
}
