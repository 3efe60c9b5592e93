#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so `npx pulsegate` works right after `npm install`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
