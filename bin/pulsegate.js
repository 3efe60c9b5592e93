#!/usr/bin/env node
// Runs pulsegate. `npm install` builds dist/ (plain JavaScript); when the sources have changed
// since, this falls back to running them through tsx, so a checkout is never served stale code.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = `${root}dist/.build-stamp`;

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

if (existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource(`${root}src`)) {
  await import('../dist/cli.js');
} else {
  const { register } = await import('tsx/esm/api');
  // The tsconfig that enables decorators is named explicitly: pulsegate may run from any directory.
  register({ tsconfig: `${root}tsconfig.json` });
  await import('../src/cli.ts');
}
