/**
 * The Node versions pulsegate promises (`engines.node` in package.json) are ones it runs on: the
 * tests run on one of them, every runtime dependency as installed accepts each promised release
 * line, `npm ci` on the oldest prints no EBADENGINE, and the CLI built as `npm install` builds it
 * starts and serves. Ranges are read with `semver`, the library npm itself reads them with.
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
import semver from 'semver';
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
    .filter((p) => p.node !== undefined && !semver.satisfies(version, p.node))
    .map((p) => `${p.path}@${p.version}: node ${p.node}`);
}

/** The newest modification time of the files under `dir`. */
function newestFile(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((path) => statSync(join(dir, path)).mtimeMs)
    .reduce((a, b) => Math.max(a, b), 0);
}

/** The promised release lines, each as the first version it admits (`^20.19.0` → 20.19.0). */
const lines = pkg.engines.node.split('||').map((line) => semver.minVersion(line.trim())!.version);
const oldest = lines[0]!;
const running = process.versions.node;

describe('the Node versions package.json promises', () => {
  it('are long-term-support release lines, one caret range each, the oldest being 20.19.0', () => {
    assert.equal(pkg.engines.node, '^20.19.0 || ^22.0.0 || ^24.0.0 || ^26.0.0');
    assert.deepEqual(lines, ['20.19.0', '22.0.0', '24.0.0', '26.0.0']);
    // Odd lines live six months and are never LTS; 27 is not out, and better-sqlite3 stops at 26.
    for (const unpromised of ['20.18.3', '21.7.3', '23.11.0', '25.0.0', '27.0.0']) {
      assert.equal(semver.satisfies(unpromised, pkg.engines.node), false, unpromised);
    }
  });

  it('include the Node running these tests (else they prove nothing about a supported one)', () => {
    assert.ok(
      semver.satisfies(running, pkg.engines.node),
      `node ${running} vs ${pkg.engines.node}`,
    );
  });

  it('are accepted by every runtime dependency as installed: each promised line and the running Node', () => {
    const packages = runtimePackages();
    assert.ok(packages.length > 100, `${packages.length} runtime packages`);
    assert.deepEqual(
      [...lines, running].flatMap((version) =>
        refusing(packages, version).map((r) => `${version}: ${r}`),
      ),
      [],
    );
  });

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
