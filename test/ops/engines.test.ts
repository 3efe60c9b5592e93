/**
 * The Node versions pulsegate promises (`engines.node` in package.json) are ones it runs on: the
 * tests run on one of them, every runtime dependency as installed accepts them, `npm ci` on the
 * oldest prints no EBADENGINE, and the CLI built as `npm install` builds it starts and serves.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../cli/run.js';
import { ready, spawnServe } from '../helpers/serve-process.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
  dev?: boolean;
  optional?: boolean;
  extraneous?: boolean;
}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

type Version = [number, number, number];

function parts(text: string): (number | undefined)[] {
  return text
    .replace(/^v/, '')
    .split('.')
    .map((p) => (p === '' || p === 'x' || p === '*' ? undefined : Number(p)));
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** One comparator of npm's range grammar, as engines fields use it. */
function admits(comparator: string, v: Version): boolean {
  if (comparator === '*' || comparator === '') return true;
  const op = /^(>=|<=|>|<|\^|~|=)?(.*)$/.exec(comparator)!;
  const [major, minor, patch] = parts(op[2]!);
  const floor: Version = [major ?? 0, minor ?? 0, patch ?? 0];
  switch (op[1]) {
    case '>=':
      return compare(v, floor) >= 0;
    case '>':
      return compare(v, floor) > 0;
    case '<':
      return compare(v, floor) < 0;
    case '<=':
      return compare(v, floor) <= 0;
    case '^':
      return compare(v, floor) >= 0 && v[0] === floor[0];
    case '~':
      return compare(v, floor) >= 0 && v[0] === floor[0] && (minor === undefined || v[1] === minor);
    default:
      // `20`, `20.x`, `20.19.0`: every given part must match.
      return (
        v[0] === major &&
        (minor === undefined || v[1] === minor) &&
        (patch === undefined || v[2] === patch)
      );
  }
}

function satisfies(range: string, version: string): boolean {
  const v = parts(version) as Version;
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => admits(comparator, v)),
  );
}

/** A package's `engines.node` (none when it states none, or states engines as a list). */
function nodeRange(engines: LockEntry['engines']): string | undefined {
  return Array.isArray(engines) ? undefined : engines?.node;
}

/**
 * What production installs: every locked package but dev-only ones (and entries npm itself marks
 * extraneous), with the engines of its package.json as installed in node_modules. Optional
 * packages for other platforms (esbuild's binaries, fsevents) are not installed and not needed.
 */
function runtimePackages(): Array<{ path: string; version: string; node: string | undefined }> {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && !entry.dev && !entry.extraneous)
    .flatMap(([path, entry]) => {
      const file = join(ROOT, path, 'package.json');
      if (!existsSync(file) && entry.optional) return [];
      const installed = JSON.parse(readFileSync(file, 'utf8')) as {
        version: string;
        engines?: LockEntry['engines'];
      };
      assert.equal(installed.version, entry.version, `${path}: installed as locked`);
      return [{ path, version: installed.version, node: nodeRange(installed.engines) }];
    });
}

/** Those of `packages` whose engines refuse `version`, as `path@version: node <range>`. */
function refusing(
  packages: Array<{ path: string; version?: string | undefined; node: string | undefined }>,
  version: string,
): string[] {
  return packages
    .filter((p) => p.node !== undefined && !satisfies(p.node, version))
    .map((p) => `${p.path}@${p.version}: node ${p.node}`);
}

/** The newest modification time of the files under `dir`. */
function newestFile(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((path) => statSync(join(dir, path)).mtimeMs)
    .reduce((a, b) => Math.max(a, b), 0);
}

const oldest = /^>=(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
const running = process.versions.node;

describe('the Node versions package.json promises', () => {
  it('are declared as ">=X.Y.Z", the oldest being 20.19.0', () => {
    assert.equal(oldest, '20.19.0');
  });

  it('reads engines ranges as npm does', () => {
    assert.equal(satisfies('>=22', '20.19.0'), false);
    assert.equal(satisfies('>=22.15.0', '20.19.0'), false);
    assert.equal(satisfies('>= 20.19.0', '20.19.0'), true);
    assert.equal(satisfies('>= 20.11.1', '20.11.0'), false);
    assert.equal(satisfies('^20.19.0 || ^22.12.0 || >=23', '20.19.0'), true);
    assert.equal(satisfies('>=23.5.0 || ^22.13.0 || ^20.17.0', '20.19.0'), true);
    assert.equal(satisfies('^18.18.0 || ^20.9.0 || >=21.1.0', '20.19.0'), true);
    assert.equal(satisfies('20.x || 22.x', '20.19.0'), true);
    assert.equal(satisfies('20.x || 22.x || 23.x', '21.0.0'), false);
    assert.equal(satisfies('20 || >=22', '21.7.3'), false);
    assert.equal(satisfies('20 || >=22', '22.0.0'), true);
    assert.equal(satisfies('6.* || 8.* || >= 10.*', '20.19.0'), true);
    assert.equal(satisfies('>=16 || 14 >=14.17', '20.19.0'), true);
    assert.equal(satisfies('>=16 || 14 >=14.17', '14.16.0'), false);
    assert.equal(satisfies('^20.17.0 || >=22.9.0', '20.16.0'), false);
    assert.equal(satisfies('^20.17.0 || >=22.9.0', '22.8.0'), false);
    assert.equal(satisfies('>=0.8.x', '20.19.0'), true);
  });

  it('include the Node running these tests (else they prove nothing about a supported one)', () => {
    assert.ok(satisfies(pkg.engines.node, running), `node ${running} vs ${pkg.engines.node}`);
  });

  it('are accepted by every runtime dependency as installed: the oldest and the running one', () => {
    const packages = runtimePackages();
    assert.ok(packages.length > 100, `${packages.length} runtime packages`);
    assert.deepEqual(
      { oldest: refusing(packages, oldest!), running: refusing(packages, running) },
      { oldest: [], running: [] },
    );
  });

  // Every release line from the oldest to one past the newest any dependency names: `>=20.19.0`
  // promises them all, and a user on one of them meets EBADENGINE or a native module with no
  // build for it. Today better-sqlite3 (20.x … 26.x), mercurius, glob and lru-cache (20 || >=22)
  // refuse 21, and better-sqlite3 refuses 27.
  it(
    'are accepted by every runtime dependency as installed: each release line from the oldest on',
    {
      todo: 'package.json engines.node promises Node 21 and 27+, which runtime dependencies refuse',
    },
    () => {
      const packages = runtimePackages();
      const named = packages.flatMap((p) => (p.node ?? '').match(/\d+/g) ?? []).map(Number);
      const newest = Math.max(...named.filter((n) => n < 100));
      const lines = [oldest!];
      for (let major = Number(oldest!.split('.')[0]) + 1; major <= newest + 1; major++) {
        lines.push(`${major}.0.0`);
      }
      assert.deepEqual(
        lines.flatMap((version) => refusing(packages, version).map((r) => `${version}: ${r}`)),
        [],
      );
    },
  );

  it('are accepted by every locked package, dev ones too: `npm ci` on the oldest prints no EBADENGINE', () => {
    const packages = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && !entry.extraneous)
      .map(([path, entry]) => ({ path, version: entry.version, node: nodeRange(entry.engines) }));
    assert.deepEqual(refusing(packages, oldest!), []);
  });

  it('run the CLI as `npm install` builds it: it starts, serves and stops on the running Node', async () => {
    // A copy of what a checkout holds, built by the `prepare` script into its own dist/ (the
    // repository's own dist/ may be in use by other tests, or stale).
    const dir = mkdtempSync(join(tmpdir(), 'pulsegate-built-'));
    try {
      for (const entry of ['package.json', 'tsconfig.json', 'bin', 'scripts', 'src']) {
        cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
      }
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const build = spawnSync(process.execPath, ['scripts/build.mjs', '--quiet'], {
        cwd: dir,
        encoding: 'utf8',
      });
      assert.equal(build.status, 0, build.stderr);
      // bin/pulsegate.js runs dist/ only while its stamp is newer than every source: else tsx.
      const stamp = statSync(join(dir, 'dist/.build-stamp')).mtimeMs;
      assert.ok(stamp >= newestFile(join(dir, 'src')), 'the built code is what runs');

      const served = await spawnServe(`sqlite:${join(dir, 'data/pulsegate.db')}`, [], {}, dir);
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        served.child.on('exit', (code, signal) => resolve({ code, signal })),
      );
      try {
        const { child } = served;
        await ready(served.url, () => child.exitCode === null && child.signalCode === null);
        const health = await fetch(`${served.url}/-/health`);
        assert.deepEqual([health.status, await health.json()], [200, { status: 'ok' }]);
        const projects = await fetch(`${served.url}/api/v4/projects`);
        assert.deepEqual([projects.status, await projects.json()], [200, []]);
      } finally {
        served.child.kill('SIGTERM');
      }
      assert.deepEqual(await exited, { code: 0, signal: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
