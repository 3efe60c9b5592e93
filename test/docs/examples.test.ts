/**
 * Every shell example in README.md and docs/*.md runs here, against a demo server like the one
 * `npm start` serves, and prints what the page says it prints. The convention, which the README
 * states for its readers:
 *
 * - A ```sh block (also bash, shell, console) is a session: each `$ ` line is a command (a line
 *   ending in `\` continues it, and so does a line starting `> `, as a terminal shows a string
 *   that goes on), and the lines after it, up to the next command, are its output.
 * - `…` in an output line stands for any text within that line; a line that is only `…` stands
 *   for any number of lines. No output lines means the command prints nothing.
 * - Each block runs in one `bash` (stderr joined to stdout) from the repository's root, with
 *   `BASE` (the server's URL, written http://127.0.0.1:3000 in the pages), `TOKEN` (a fresh api
 *   token for the demo user alice, as `npm start` prints) and `DATABASE_URL` (the server's
 *   database, for `npx pulsegate` commands), and git's author and committer set to alice's name.
 *   Every command must exit 0.
 * - A block that cannot run here (installing, starting a server, a browser, another machine) is
 *   ```sh no-test; NO_TEST below counts them per page, so nothing is skipped silently.
 *
 * Each page gets its own freshly seeded server, so a page's examples work on a fresh `npm start`
 * whatever the other pages wrote. The examples document behaviour, not storage, so they run on
 * SQLite only (the suites of each feature cover both databases).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { prepareDemo } from '../../src/cli/demo.js';
import { type TestServer, startServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WRITTEN_BASE = 'http://127.0.0.1:3000';

/** Blocks marked ```sh no-test, per page. A page not listed has none. */
const NO_TEST: Record<string, number> = {
  'README.md': 4, // npm install && npm start, npm test, BASE and TOKEN, a production serve
  'docs/benchmarks.md': 2, // benchmarks are not tests
  'docs/graphql.md': 1, // BASE and TOKEN
  'docs/oauth.md': 3, // BASE and TOKEN; the code flow and the device flow need a browser
  'docs/operations.md': 2, // BASE and TOKEN; moving to PostgreSQL
  'docs/rest.md': 1, // BASE and TOKEN
  'docs/web.md': 2, // BASE and TOKEN; a feed token from the profile page
  'docs/webhooks.md': 1, // BASE and TOKEN
};

/** Pages written on other branches; links to them are checked once they exist. */
const ELSEWHERE = new Set([
  'docs/permissions.md',
  'docs/webhook-delivery.md',
  'docs/write-consistency.md',
  'docs/pushes.md',
]);

const SHELLS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

interface Command {
  line: number;
  text: string;
  expected: string[];
}

interface Block {
  line: number;
  info: string;
  body: string[];
  commands: Command[];
}

const pages = () => [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** The fenced blocks of a page, with their 1-based line numbers and indentation removed. */
function fencedBlocks(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trimStart().startsWith(fence!); j++) {
      body.push(lines[j]!.slice(Math.min(indent!.length, /^\s*/.exec(lines[j]!)![0].length)));
    }
    blocks.push({ line: i + 1, info: info!.trim(), body, commands: [] });
    i = j;
  }
  return blocks;
}

function parseCommands(block: Block): Command[] {
  const commands: Command[] = [];
  let current: Command | undefined;
  let continuing = false;
  block.body.forEach((raw, k) => {
    const line = block.line + 1 + k;
    if (current && (continuing || raw.startsWith('> '))) {
      current.text += `\n${continuing ? raw : raw.slice(2)}`;
      continuing = raw.endsWith('\\');
      return;
    }
    if (raw.startsWith('$ ')) {
      current = { line, text: raw.slice(2), expected: [] };
      commands.push(current);
      continuing = raw.endsWith('\\');
      return;
    }
    if (!current) {
      if (raw.trim() === '') return;
      throw new Error(
        `line ${line}: a shell block's first line must be a \`$ \` command; mark a block that ` +
          'cannot run in the test as ```sh no-test',
      );
    }
    current.expected.push(raw);
  });
  for (const c of commands) {
    while (c.expected.length && c.expected.at(-1)!.trim() === '') c.expected.pop();
  }
  return commands;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `…` is any text within a line; a line of only `…` is any number of lines. */
function outputPattern(expected: string[]): RegExp {
  const lines = expected.map((l) =>
    l.trim() === '…' ? '[\\s\\S]*?' : escape(l.trimEnd()).replaceAll('…', '.*?'),
  );
  return new RegExp(`^${lines.join('\n')}$`);
}

const SEPARATOR = '\u001f';

/** Runs a block's commands in one bash; returns each command's output and exit code. */
async function runBlock(
  commands: Command[],
  env: Record<string, string>,
): Promise<{ output: string; code: number }[]> {
  const script = [
    'exec 2>&1',
    ...commands.map((c) => `${c.text}\nprintf '\\n${SEPARATOR}%s\\n' "$?"`),
  ].join('\n');
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
      // Its own process group, so a command left waiting (and its children) can be stopped.
      detached: true,
    });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    const timer = setTimeout(() => {
      text += '\n(stopped after 30 s)';
      process.kill(-child.pid!, 'SIGKILL');
    }, 30_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
  const results: { output: string; code: number }[] = [];
  const marker = new RegExp(`\\n${SEPARATOR}(\\d+)\\n`, 'g');
  let start = 0;
  for (const m of out.matchAll(marker)) {
    // Trailing blanks (and HTTP headers' carriage returns) are not part of what a reader sees.
    const output = out
      .slice(start, m.index)
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .replace(/\n+$/, '');
    results.push({ output, code: Number(m[1]) });
    start = m.index + m[0].length;
  }
  if (start < out.length) results.push({ output: out.slice(start), code: -1 });
  return results;
}

interface Page {
  runnable: Block[];
  skipped: number;
  /** Shell blocks that are neither a session nor marked no-test. */
  problems: string[];
}

function examplesOf(page: string): Page {
  const shellBlocks = fencedBlocks(read(page)).filter((b) =>
    SHELLS.has(b.info.split(/\s+/)[0] ?? ''),
  );
  const marked = shellBlocks.filter((b) => !/\bno-test\b/.test(b.info));
  const problems: string[] = [];
  const runnable = marked.filter((b) => {
    try {
      b.commands = parseCommands(b);
      return true;
    } catch (error) {
      problems.push(`${page}: ${(error as Error).message}`);
      return false;
    }
  });
  return { runnable, skipped: shellBlocks.length - marked.length, problems };
}

describe('the documentation', () => {
  it('README.md is a front door: at most 350 lines, linking every page of docs/', () => {
    const readme = read('README.md');
    assert.ok(readme.split('\n').length <= 351, `${readme.split('\n').length} lines`);
    for (const page of pages().slice(1)) {
      assert.ok(readme.includes(`(${page})`), `README.md links ${page}`);
    }
  });

  it('links only to files that exist', () => {
    for (const page of pages()) {
      const text = read(page).replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!) || target!.startsWith('#')) continue;
        const path = normalize(join(dirname(page), target!.split('#')[0]!));
        if (ELSEWHERE.has(path) && !existsSync(join(ROOT, path))) continue;
        assert.ok(existsSync(join(ROOT, path)), `${page} links ${target}, which does not exist`);
      }
    }
  });

  it('shows no table twice', () => {
    const seen = new Map<string, string>();
    const separator = /^\|[\s:|-]+\|$/;
    for (const page of pages()) {
      const lines = read(page).split('\n');
      lines.forEach((line, i) => {
        // A table's body rows; header rows (followed by the |---| line) may repeat.
        if (!/^\|.*\|$/.test(line) || separator.test(line)) return;
        if (separator.test(lines[i + 1] ?? '')) return;
        const key = line.replace(/\s+/g, ' ');
        const where = `${page}:${i + 1}`;
        assert.ok(!seen.has(key), `${where} repeats the table row of ${seen.get(key)}: ${line}`);
        seen.set(key, where);
      });
    }
  });

  it('defines $BASE and $TOKEN on each page before using them', () => {
    for (const page of pages()) {
      const lines = read(page).split('\n');
      for (const name of ['BASE', 'TOKEN']) {
        const used = lines.findIndex((l) => new RegExp(`\\$\\{?${name}\\b`).test(l));
        if (used < 0) continue;
        const defined = lines.findIndex((l) => new RegExp(`(^|[\\s$])${name}=`).test(l));
        assert.ok(
          defined >= 0 && defined < used,
          `${page}:${used + 1} uses $${name} before it is defined`,
        );
      }
    }
  });

  it('writes every shell block as a session of `$ ` commands, or marks it no-test', () => {
    assert.deepEqual(
      pages().flatMap((p) => examplesOf(p).problems),
      [],
    );
  });

  it('marks every shell block that cannot run here as no-test, and counts them', () => {
    const counts = Object.fromEntries(pages().map((p) => [p, examplesOf(p).skipped]));
    const expected = Object.fromEntries(pages().map((p) => [p, NO_TEST[p] ?? 0]));
    assert.deepEqual(counts, expected);
  });
});

// Each page has a server of its own, so the pages run side by side.
describe('the shell examples', { concurrency: true }, () => {
  for (const page of pages()) {
    const { runnable } = examplesOf(page);
    if (runnable.length === 0) continue;

    // A page is a story: its blocks run in order, on the state the blocks before left.
    describe(`the shell examples of ${page}`, { concurrency: 1 }, () => {
      let server: TestServer;
      let env: Record<string, string>;

      before(async () => {
        server = await startServer();
        const banner = await prepareDemo(server.store, server.clock, server.config, () => {});
        const token = /^ {2}(glpat-[A-Za-z0-9_-]+)$/m.exec(banner)?.[1];
        assert.ok(token, banner);
        const databaseUrl = server.config.databaseUrl;
        const alice = { name: 'Alice Moreau', email: 'alice@example.com' };
        env = {
          BASE: server.url,
          TOKEN: token,
          DATABASE_URL: databaseUrl,
          GIT_AUTHOR_NAME: alice.name,
          GIT_AUTHOR_EMAIL: alice.email,
          GIT_COMMITTER_NAME: alice.name,
          GIT_COMMITTER_EMAIL: alice.email,
        };
      });
      after(() => server.close());

      for (const block of runnable) {
        it(`runs the block at line ${block.line} as written`, async () => {
          const local = (s: string) => s.replaceAll(WRITTEN_BASE, server.url);
          const commands = block.commands.map((c) => ({ ...c, text: local(c.text) }));
          const results = await runBlock(commands, env);
          commands.forEach((c, k) => {
            const got = results[k];
            const where = `${page}:${c.line}: $ ${c.text}`;
            assert.ok(got, `${where}\nnever ran: the block stopped before it`);
            const pattern = outputPattern(c.expected.map(local));
            assert.ok(
              pattern.test(got.output),
              `${where}\nexpected:\n${c.expected.join('\n')}\ngot:\n${got.output.slice(0, 4000)}`,
            );
            assert.equal(got.code, 0, `${where}\nexited ${got.code}:\n${got.output}`);
          });
          assert.equal(results.length, commands.length, `${page}:${block.line}: unexpected output`);
        });
      }
    });
  }
});
