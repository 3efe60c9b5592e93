#!/usr/bin/env node
// Transpiles src/**/*.ts to dist/ (same layout, one file each) and copies the assets beside them,
// so the server runs on plain Node: no TypeScript loader thread in memory, no compile at start.
// Type checking stays with `tsc --noEmit` (npm test); this only strips types.
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const out = join(root, 'dist');

function walk(dir, files = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, files);
    else files.push(path);
  }
  return files;
}

const files = walk(src);
const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
rmSync(out, { recursive: true, force: true });
buildSync({
  entryPoints: sources,
  outdir: out,
  outbase: src,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  tsconfig: join(root, 'tsconfig.json'),
  logLevel: 'warning',
});
for (const file of files.filter((f) => !f.endsWith('.ts'))) {
  const target = join(out, relative(src, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
// The activity pages' browser script (client/live.js with graphql-ws), bundled once here by the
// built module that serves it (web/live-script.ts), which reads it from beside itself.
const { bundleLiveClient } = await import(pathToFileURL(join(out, 'web/live-script.js')).href);
writeFileSync(join(out, 'web/client/live.bundle.js'), await bundleLiveClient());
// bin/pulsegate.js uses dist/ only while this stamp is newer than every source file.
writeFileSync(join(out, '.build-stamp'), new Date().toISOString());
if (!process.argv.includes('--quiet')) {
  console.log(`built ${sources.length} modules into dist/`);
}
