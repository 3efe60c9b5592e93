#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so `npx pulsegate` works right after `npm install`,
// from any working directory (the tsconfig that enables decorators is named explicitly).
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('../src/cli.ts');
