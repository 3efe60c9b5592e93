/**
 * The outbox is durable: a server SIGKILLed right after a write (its worker running, but not yet
 * woken) has sent nothing; `pulsegate serve` started again on the same database delivers that
 * write's webhook.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { openStore } from '../../src/store/store.js';
import { BIN, ROOT } from '../cli/run.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestDatabase, createTestDatabase } from '../helpers/server.js';
import { Receiver } from './receiver.js';
import { sealHookToken } from '../../src/domain/webhook-tokens.js';

const WRITER = fileURLToPath(new URL('./write-then-die.ts', import.meta.url));

function run(args: string[]): {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>;
} {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<{
    code: number | null;
    signal: string | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

for (const dialect of DIALECTS) {
  describe(`webhook outbox survives SIGKILL (${dialect})`, () => {
    let database: TestDatabase;
    let receiver: Receiver;
    let projectId: number;
    let authorId: number;

    before(async () => {
      receiver = await new Receiver().listen();
      database = await createTestDatabase(dialect);
      const store = await openStore(database.url);
      try {
        const f = new Fixtures(store);
        const alice = await f.user('alice');
        const project = await f.project('alice/api', alice.id);
        await f.member(project.id, alice.id, ACCESS_LEVELS.maintainer);
        await f.hook(project.id, `${receiver.url}/after-crash`, {
          token: sealHookToken('crash-token', null, `${receiver.url}/after-crash`),
        });
        projectId = project.id;
        authorId = alice.id;
      } finally {
        await store.close();
      }
    });
    after(async () => {
      await receiver.close();
      await database.drop();
    });

    it('delivers the write after a restart', async () => {
      const writer = run([
        '--import',
        'tsx',
        WRITER,
        database.url,
        String(projectId),
        String(authorId),
      ]);
      const killed = await writer.done;
      assert.equal(killed.signal, 'SIGKILL', killed.stderr);
      assert.equal(killed.stdout, 'written\n');
      // Give a stray request (there must be none) time to arrive.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(receiver.received.length, 0, 'the killed server sent nothing');

      const server = run([
        BIN,
        'serve',
        '--database-url',
        database.url,
        '--port',
        '0',
        '--webhooks-allow-local',
      ]);
      try {
        await receiver.waitFor(1, 30_000);
      } finally {
        server.child.kill('SIGTERM');
        const stopped = await server.done;
        assert.equal(stopped.code, 0, stopped.stderr);
      }
      const [delivery] = receiver.received;
      assert.equal(delivery!.url, '/after-crash');
      assert.equal(delivery!.headers['x-gitlab-event'], 'Issue Hook');
      assert.equal(delivery!.headers['x-gitlab-token'], 'crash-token');
      assert.equal(
        (delivery!.body.object_attributes as { title: string }).title,
        'Written, then killed',
      );
      assert.equal(receiver.received.length, 1);
    });
  });
}
