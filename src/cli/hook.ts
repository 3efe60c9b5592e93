/**
 * `pulsegate hook install|post-receive`: real pushes become events. `install` writes a bare
 * repository's `hooks/post-receive`, which runs this installation's `hook post-receive` with the
 * server, token and project it was given; `post-receive` asks git what each pushed ref gained and
 * reports it to `POST /api/v4/projects/:id/pushes`. A post-receive hook cannot reject a push: a
 * failed report is said on stderr (git shows it to the pusher as `remote: …`) and exits 1.
 * The hook keeps its token on disk beside the repository: a push token (scope `write_repository`),
 * which records pushes and reaches nothing else of the API (docs/pushes.md).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { MAX_PUSH_CHANGES, type PushChange, hasControl } from '../domain/push-changes.js';
import { UsageError } from './data-commands.js';
import { GitError, describeUpdate, git, isReportedRef, parseRefUpdates } from './git-changes.js';

export const HOOK_USAGE = `  hook install <bare-repo>  Write the repository's hooks/post-receive so that every push is
        [--force]           reported as events (env PULSEGATE_URL, PULSEGATE_TOKEN: a push
                            token, scope write_repository only: a token that reads the API is
                            refused; PULSEGATE_PROJECT: id or full path); --force replaces a
                            post-receive hook pulsegate did not write
  hook post-receive         Run by git in the repository: read "oldrev newrev ref" lines and
                            report the push (same environment)
`;

const MARKER = '# pulsegate post-receive hook';
/** This installation's CLI, whichever way it runs (dist/ or src/ through tsx). */
const BIN = fileURLToPath(new URL('../../bin/pulsegate.js', import.meta.url));
/** One request stays well under the server's 1 MiB body limit. */
const MAX_REQUEST_BYTES = 512 * 1024;
const TIMEOUT_MS = 30_000;

interface HookSettings {
  url: string;
  token: string;
  project: string;
}

/** The three settings from the environment, checked; a UsageError names what is wrong. */
export function hookSettings(env: NodeJS.ProcessEnv): HookSettings {
  const missing = ['PULSEGATE_URL', 'PULSEGATE_TOKEN', 'PULSEGATE_PROJECT'].filter(
    (name) => !env[name],
  );
  if (missing.length > 0) throw new UsageError(`${missing.join(', ')} must be set`);
  const settings = {
    url: env.PULSEGATE_URL!.replace(/\/+$/, ''),
    token: env.PULSEGATE_TOKEN!,
    project: env.PULSEGATE_PROJECT!,
  };
  let parsed: URL;
  try {
    parsed = new URL(settings.url);
  } catch {
    throw new UsageError(`PULSEGATE_URL is not a URL: ${settings.url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError('PULSEGATE_URL must be an http:// or https:// URL');
  }
  if (parsed.search || parsed.hash) {
    throw new UsageError('PULSEGATE_URL must not have a query or fragment');
  }
  for (const [name, value] of Object.entries(settings)) {
    if (hasControl(value)) {
      throw new UsageError(`PULSEGATE_${name.toUpperCase()} must not contain control characters`);
    }
  }
  return settings;
}

/** A word for sh: single-quoted, each `'` written as `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function hookScript(settings: HookSettings, node: string, bin: string): string {
  return [
    '#!/bin/sh',
    MARKER,
    '# Written by `pulsegate hook install`; reports each push to pulsegate as events.',
    '# It holds a push token (scope write_repository): keep this file readable by its owner only.',
    `PULSEGATE_URL=${shellQuote(settings.url)}`,
    `PULSEGATE_TOKEN=${shellQuote(settings.token)}`,
    `PULSEGATE_PROJECT=${shellQuote(settings.project)}`,
    'export PULSEGATE_URL PULSEGATE_TOKEN PULSEGATE_PROJECT',
    `exec ${shellQuote(node)} ${shellQuote(bin)} hook post-receive`,
    '',
  ].join('\n');
}

/** git's own environment would point install at the repository the caller runs in. */
function cleanGitEnv(): void {
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_INDEX_FILE']) {
    delete process.env[name];
  }
}

async function install(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { force: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) {
    throw new UsageError('usage: pulsegate hook install <bare-repo-path> [--force]');
  }
  const settings = hookSettings(process.env);
  cleanGitEnv();
  const repo = resolve(positionals[0]!);
  if (!existsSync(repo)) throw new UsageError(`${repo} does not exist`);
  let bare: string;
  let gitDir: string;
  let hooksPath: string;
  try {
    bare = (await git(['rev-parse', '--is-bare-repository'], { cwd: repo })).trim();
    gitDir = (await git(['rev-parse', '--absolute-git-dir'], { cwd: repo })).trim();
    hooksPath = (await git(['rev-parse', '--git-path', 'hooks'], { cwd: repo })).trim();
  } catch {
    throw new UsageError(`${repo} is not a git repository`);
  }
  // A bare repository is its own git directory; a directory inside one (or a work tree) is not.
  if (bare !== 'true' || realpathSync(gitDir) !== realpathSync(repo)) {
    throw new UsageError(`${repo} is not a bare repository (git init --bare)`);
  }
  const hooksDir = resolve(repo, hooksPath);
  const hook = resolve(hooksDir, 'post-receive');
  if (existsSync(hook) && !values.force && !readFileSync(hook, 'utf8').includes(MARKER)) {
    throw new UsageError(`${hook} exists and was not written by pulsegate (use --force)`);
  }
  await checkPushToken(settings);
  mkdirSync(hooksDir, { recursive: true });
  // Written beside it and renamed: a push at this moment runs the old hook or the new, whole.
  const temp = resolve(dirname(hook), `.post-receive.${process.pid}.tmp`);
  writeFileSync(temp, hookScript(settings, process.execPath, BIN), { mode: 0o700 });
  chmodSync(temp, 0o700);
  renameSync(temp, hook);
  process.stdout.write(
    `installed ${hook}: pushes are reported to ${settings.url} for project ${settings.project}\n`,
  );
  return 0;
}

/**
 * The token must not reach the API: the hook keeps it in a file that whoever administers the
 * repository can read. A token the server accepts on `GET /user` is refused before anything is
 * written, and so is one it does not know. A server out of reach cannot say: the hook is written
 * and the reason told (the server refuses a token of any other scope on every push anyway).
 */
async function checkPushToken(settings: HookSettings): Promise<void> {
  let status: number;
  try {
    const response = await fetch(`${settings.url}/api/v4/user`, {
      headers: { 'private-token': settings.token, 'user-agent': 'pulsegate-hook' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await response.arrayBuffer();
    status = response.status;
  } catch (error) {
    process.stderr.write(
      `pulsegate: could not check PULSEGATE_TOKEN's scope (cannot reach ${settings.url}: ${reason(error)}); it must be a push token, scope write_repository only\n`,
    );
    return;
  }
  if (status === 401) {
    throw new UsageError(`${settings.url} refused PULSEGATE_TOKEN (expired, revoked or wrong?)`);
  }
  if (status < 300) {
    throw new UsageError(
      'PULSEGATE_TOKEN reads the API (scope api, read_api or read_user); the hook keeps its token on disk: give it a push token, scope write_repository only',
    );
  }
}

/** Why a request did not get an answer. */
function reason(error: unknown): string {
  if ((error as Error).name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** Requests of at most MAX_PUSH_CHANGES changes and about MAX_REQUEST_BYTES each. */
export function batches(changes: PushChange[]): PushChange[][] {
  const out: PushChange[][] = [];
  let current: PushChange[] = [];
  let size = 0;
  for (let change of changes) {
    let bytes = Buffer.byteLength(JSON.stringify(change));
    if (bytes > MAX_REQUEST_BYTES) {
      // Twenty huge messages: keep each one's first line, which is all an event shows.
      change = {
        ...change,
        commits: change.commits.map((c) => ({ ...c, message: c.message.split('\n', 1)[0]! })),
      };
      bytes = Buffer.byteLength(JSON.stringify(change));
    }
    if (
      current.length > 0 &&
      (current.length >= MAX_PUSH_CHANGES || size + bytes > MAX_REQUEST_BYTES)
    ) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(change);
    size += bytes;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function toWire(change: PushChange) {
  return {
    before: change.before,
    after: change.after,
    ref: change.ref,
    commits: change.commits,
    total_commits_count: change.totalCommitsCount,
  };
}

/** Why the server refused, in words a pusher can act on. */
function refusal(status: number, body: unknown, settings: HookSettings): string {
  const b = (body ?? {}) as { message?: unknown; error?: unknown };
  const detail =
    typeof b.message === 'string'
      ? b.message
      : typeof b.error === 'string'
        ? b.error
        : b.message !== undefined
          ? JSON.stringify(b.message)
          : `HTTP ${status}`;
  switch (status) {
    case 401:
      return `${detail}: the token was refused (PULSEGATE_TOKEN expired, revoked or wrong?)`;
    case 403:
      // A hook installed before pushes took a push token of their own still holds an api token.
      if (b.error === 'insufficient_scope') {
        return 'PULSEGATE_TOKEN is not a push token: recording a push takes scope write_repository (run hook install again with one)';
      }
      return `${detail}: the token's user may not push to ${settings.project} (needs Developer access and a push token, scope write_repository)`;
    case 404:
      return `${detail}: no project ${settings.project} visible to the token's user`;
    default:
      return `${detail} (HTTP ${status})`;
  }
}

interface ReportedEvent {
  id: number;
  action_name: string;
  push_data: { ref_type: string; ref: string; commit_count: number };
}

/** Answers worth one more try: the server or a proxy in front of it was briefly unavailable. */
const RETRIED_STATUSES = new Set([502, 503, 504]);
const RETRY_DELAY_MS = 1_000;

/**
 * Sends one batch. It carries an `Idempotency-Key` unique to this hook run and batch, so the one
 * retry (after a refused connection or a 502/503/504) can never record the push twice; a timeout
 * is not retried, so a pusher waits at most about TIMEOUT_MS.
 */
async function report(
  settings: HookSettings,
  changes: PushChange[],
  key: string,
): Promise<ReportedEvent[]> {
  const endpoint = `${settings.url}/api/v4/projects/${encodeURIComponent(settings.project)}/pushes`;
  const body = JSON.stringify({ changes: changes.map(toWire) });
  for (let attempt = 1; ; attempt++) {
    const last = attempt === 2;
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'private-token': settings.token,
          'idempotency-key': key,
          'user-agent': 'pulsegate-hook',
        },
        body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      if (!last && !timedOut) {
        await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
        continue;
      }
      throw new HookFailure(`cannot reach ${settings.url}: ${reason(error)}`);
    }
    const text = await response.text();
    if (!last && RETRIED_STATUSES.has(response.status)) {
      await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (response.status !== 201) throw new HookFailure(refusal(response.status, parsed, settings));
    return (parsed as { events: ReportedEvent[] }).events;
  }
}

class HookFailure extends Error {}

function readStdin(): Promise<string> {
  return new Promise((resolveInput, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => resolveInput(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

async function postReceive(): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`pulsegate: this push was NOT recorded: ${message}\n`);
    return 1;
  };
  let settings: HookSettings;
  try {
    settings = hookSettings(process.env);
  } catch (error) {
    return fail((error as Error).message);
  }
  let recorded = 0;
  try {
    const updates = parseRefUpdates(await readStdin()).filter((u) => isReportedRef(u.ref));
    const changes: PushChange[] = [];
    for (const update of updates) changes.push(await describeUpdate(update));
    const run = randomUUID();
    for (const [index, batch] of batches(changes).entries()) {
      for (const event of await report(settings, batch, `pulsegate-hook-${run}-${index}`)) {
        const { ref_type: refType, ref, commit_count: commits } = event.push_data;
        process.stdout.write(
          `pulsegate: recorded event ${event.id}: ${event.action_name} ${refType} ${ref} (${commits} commit${commits === 1 ? '' : 's'})\n`,
        );
        recorded++;
      }
    }
  } catch (error) {
    if (error instanceof HookFailure || error instanceof GitError) {
      // Earlier batches stand: say how much of the push made it.
      const note = recorded > 0 ? ` (${recorded} ref update(s) before it were recorded)` : '';
      return fail(`${error.message}${note}`);
    }
    throw error;
  }
  return 0;
}

export async function runHookCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  switch (action) {
    case 'install':
      return install(rest);
    case 'post-receive':
      if (rest.length > 0)
        throw new UsageError('usage: pulsegate hook post-receive (no arguments)');
      return postReceive();
    default:
      throw new UsageError('usage: pulsegate hook install <bare-repo-path> | hook post-receive');
  }
}
