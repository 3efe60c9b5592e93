#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's built-in runner (Node 20 cannot glob .ts by itself).
// Arguments narrow the run: `node scripts/run-tests.mjs test/rest` or a single file.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(path, out) {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) {
      if (entry === 'node_modules' || entry.startsWith('.')) continue;
      collect(join(path, entry), out);
    }
  } else if (path.endsWith('.test.ts')) {
    out.push(path);
  }
  return out;
}

const roots = process.argv.slice(2);
const files = (roots.length ? roots : ['test']).flatMap((root) => collect(root, []));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// A test that hangs fails after ten minutes instead of eating the whole CI budget.
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=600000', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
