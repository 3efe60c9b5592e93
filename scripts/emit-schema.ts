/**
 * Writes `schema.graphql` from the code-first schema (`npm run schema`). With `--check`, exits 1
 * when the committed file differs from what the code produces.
 */
import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { schemaText } from '../src/graphql/schema.js';

const target = new URL('../schema.graphql', import.meta.url);
const text = await schemaText();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as drift
  }
  if (current !== text) {
    process.stderr.write('schema.graphql is out of date: run `npm run schema`\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target.pathname}\n`);
}
