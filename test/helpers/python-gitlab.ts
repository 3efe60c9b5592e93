/**
 * python-gitlab (Debian's python3-gitlab, which .ci/run installs) driving a script against a test
 * server, for the tests that show a real GitLab client works unchanged.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';

/** Whether Debian's python3-gitlab is importable. */
async function installed(): Promise<boolean> {
  if (!existsSync(PYTHON)) return false;
  try {
    await run(PYTHON, ['-c', 'import gitlab']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `script` with `args` and returns what it printed; skips `t` and returns null where
 * python3-gitlab is not installed, which fails in CI (a skipped client test proves nothing there).
 */
export async function runPythonGitlab(
  t: TestContext,
  script: string,
  args: string[],
): Promise<string | null> {
  if (!(await installed())) {
    assert.ok(!process.env.CI, 'python3-gitlab must be installed in CI');
    t.skip('python3-gitlab is not installed (apt-get install python3-gitlab; .ci/run does)');
    return null;
  }
  const { stdout } = await run(PYTHON, [script, ...args], { timeout: 60_000 });
  return stdout;
}
