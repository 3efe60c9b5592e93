/**
 * "A server killed mid-import leaves the database as it was": start `pulsegate import` on a big
 * file, SIGKILL it once it reports rows written inside its transaction, and compare the database
 * with what it held before, via a full export.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import { formatRecord } from '../../src/data/record-format.js';
import { SeedService } from '../../src/data/seed.js';
import { syntheticRecords } from '../../src/data/synthetic-data.js';
import { TransferStore } from '../../src/store/transfer.js';
import { openStore } from '../../src/store/store.js';
import { exportText } from '../helpers/export-text.js';
import { DIALECTS, type TestDatabase, createTestDatabase } from '../helpers/server.js';
import { BIN, ROOT } from './run.js';

async function snapshot(url: string): Promise<string> {
  const store = await openStore(url);
  try {
    return await exportText(store);
  } finally {
    await store.close();
  }
}

for (const dialect of DIALECTS) {
  describe(`import killed mid-way (${dialect})`, () => {
    let database: TestDatabase;
    let dir: string;
    let file: string;

    before(async () => {
      database = await createTestDatabase(dialect);
      dir = mkdtempSync(join(tmpdir(), 'pulsegate-kill-'));
      file = join(dir, 'big.ndjson');
      const store = await openStore(database.url);
      try {
        await new SeedService(store, { now: () => 0 }).seedSynthetic({
          events: 300,
          users: 5,
          projects: 2,
        });
        // The big file continues after the ids already present, so it would import cleanly.
        const out = createWriteStream(file);
        const records = syntheticRecords(
          { events: 150_000, users: 20, projects: 5, seed: 7 },
          await new TransferStore(store).maxIds(),
        );
        let chunk = '';
        for (const record of records) {
          chunk += formatRecord(record) + '\n';
          if (chunk.length > 1 << 20) {
            if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
            chunk = '';
          }
        }
        out.end(chunk);
        await finished(out);
      } finally {
        await store.close();
      }
    });
    after(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('leaves exactly the data that was there before', async () => {
      const beforeImport = await snapshot(database.url);
      assert.equal(
        beforeImport.split('\n').filter((l) => l.startsWith('{"kind":"event"')).length,
        300,
      );

      const child = spawn(
        process.execPath,
        [BIN, 'import', file, '--progress', '--database-url', database.url],
        {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
        (resolve) => child.on('close', (code, signal) => resolve({ code, signal })),
      );
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        // "import: 12,000 records · …": rows are being written inside the import's transaction.
        if (/^import: [\d,]+ records/m.test(stderr)) child.kill('SIGKILL');
      });
      const { code, signal } = await exited;
      assert.equal(
        signal,
        'SIGKILL',
        `import finished before it could be killed (code ${code}): ${stderr}`,
      );
      assert.equal(stdout, '', 'no summary: the import did not complete');

      assert.equal(await snapshot(database.url), beforeImport);
    });
  });
}
