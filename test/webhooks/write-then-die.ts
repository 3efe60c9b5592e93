/**
 * A serving pulsegate (its webhook worker running) that opens an issue and is SIGKILLed the
 * moment the write has committed, before its worker can claim the delivery.
 * Usage: node --import tsx write-then-die.ts <database-url> <project-id> <author-id>
 */
import 'reflect-metadata';
import { loadConfig } from '../../src/config.js';
import { buildServer } from '../../src/server.js';
import { openStore } from '../../src/store/store.js';
import { openIssue } from './record.js';

const [url, projectId, authorId] = process.argv.slice(2);
const config = loadConfig(
  { databaseUrl: url, port: 0, logLevel: 'silent', webhooksAllowLocal: true },
  {},
);
const store = await openStore(config.databaseUrl);
const { app, services } = await buildServer({ config, store });
await app.listen({ host: '127.0.0.1', port: 0 });
await openIssue(
  store,
  services,
  Date.now(),
  Number(projectId),
  Number(authorId),
  'Written, then killed',
);
process.stdout.write('written\n');
// Synchronously, in the turn the commit resolved in: the worker's wake-up has not run yet.
process.kill(process.pid, 'SIGKILL');
