/**
 * `npm ci` on the oldest Node the project supports prints no EBADENGINE warning: every package
 * in package-lock.json (dev dependencies too: `npm ci` installs them) accepts that Node version.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
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

describe('Node engines of every locked package', () => {
  const oldest = /^>=(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1];

  it('the project declares its oldest Node as >=X.Y.Z', () => {
    assert.equal(oldest, '20.19.0');
  });

  it('reads engines ranges as npm does', () => {
    assert.equal(satisfies('>=22', '20.19.0'), false);
    assert.equal(satisfies('>=22.15.0', '20.19.0'), false);
    assert.equal(satisfies('^20.19.0 || ^22.12.0 || >=23', '20.19.0'), true);
    assert.equal(satisfies('>=23.5.0 || ^22.13.0 || ^20.17.0', '20.19.0'), true);
    assert.equal(satisfies('^18.18.0 || ^20.9.0 || >=21.1.0', '20.19.0'), true);
    assert.equal(satisfies('20.x || 22.x', '20.19.0'), true);
    assert.equal(satisfies('>=16 || 14 >=14.17', '20.19.0'), true);
    assert.equal(satisfies('^20.17.0 || >=22.9.0', '20.16.0'), false);
  });

  it(`all accept that Node (npm ci prints no EBADENGINE)`, () => {
    const refused = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, entry]) => {
        const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return node && !satisfies(node, oldest!) ? [`${path}@${entry.version}: node ${node}`] : [];
      });
    assert.deepEqual(refused, []);
  });
});
