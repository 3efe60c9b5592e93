/**
 * `pulsegate prune [--dry-run]` on a synthetic database (events dated 2025): the dry run prints
 * the rows per table older than the window and the oldest event kept, exactly as counted from
 * the file, and removes nothing; the real run removes exactly those rows and says so; `0` keeps
 * everything; a bad window is exit 1 with the configuration's message.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { pulsegate } from './run.js';

describe('pulsegate prune', () => {
  let dir: string;
  let path: string;
  let url: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pulsegate-prune-'));
    path = join(dir, 'prune.db');
    url = `sqlite:${path}`;
    const seeded = await pulsegate(['seed', '--events', '600', '--database-url', url]);
    assert.equal(seeded.code, 0, seeded.stderr);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Rows older than `cutoff`, per table, and the oldest kept, counted from the file itself. */
  function counted(cutoff: number) {
    const db = new SQLite(path, { readonly: true });
    try {
      const one = (sql: string) => Number(Object.values(db.prepare(sql).get(cutoff) as object)[0]);
      return {
        events: one('SELECT count(*) FROM events WHERE created_at < ?'),
        payloads: one(
          'SELECT count(*) FROM push_event_payloads WHERE event_id IN (SELECT id FROM events WHERE created_at < ?)',
        ),
        oldestKept: one('SELECT min(created_at) FROM events WHERE created_at >= ?'),
        all: one('SELECT count(*) FROM events WHERE ? IS NOT NULL'),
      };
    } finally {
      db.close();
    }
  }

  /** The cutoff a run printed. */
  function cutoffOf(stdout: string): number {
    const match = /^retention 1y: events created before (\S+)$/m.exec(stdout);
    assert.ok(match, stdout);
    return Date.parse(match[1]!);
  }

  it('--dry-run says what would go and removes nothing; the run removes exactly that', async () => {
    // The synthetic events span 2025; a year back from now cuts through them.
    const dry = await pulsegate([
      'prune',
      '--dry-run',
      '--retain-events',
      '1y',
      '--database-url',
      url,
    ]);
    assert.equal(dry.code, 0, dry.stderr);
    const cutoff = cutoffOf(dry.stdout);
    const before = counted(cutoff);
    assert.ok(before.events > 0 && before.events < before.all, JSON.stringify(before));
    const width = Math.max(String(before.events).length, String(before.payloads).length);
    const n = (value: number) => String(value).padStart(width);
    assert.equal(
      dry.stdout,
      `retention 1y: events created before ${new Date(cutoff).toISOString()}\n` +
        `  events               ${n(before.events)}\n` +
        `  push_event_payloads  ${n(before.payloads)}\n` +
        `  webhook_deliveries   ${n(0)}\n` +
        `oldest event kept: ${new Date(before.oldestKept).toISOString()}\n` +
        'dry run: nothing was removed\n',
    );
    assert.deepEqual(counted(cutoff), before);

    const run = await pulsegate(
      ['prune', '--retain-events', '1y', '--database-url', url],
      undefined,
      {
        PULSEGATE_PRUNE_BATCH_SIZE: '100',
      },
    );
    assert.equal(run.code, 0, run.stderr);
    const at = cutoffOf(run.stdout);
    const gone = counted(at);
    assert.equal(gone.events, 0);
    assert.equal(gone.payloads, 0);
    const removed =
      /^removed (\d+) events, (\d+) push payloads, 0 webhook deliveries in (\d+) batches$/m.exec(
        run.stdout,
      );
    assert.ok(removed, run.stdout);
    // The run's cutoff is a moment later than the dry run's: at least what the dry run counted.
    assert.equal(Number(removed[1]), before.all - gone.all);
    assert.ok(Number(removed[1]) >= before.events);
    assert.equal(Number(removed[3]), Math.floor(Number(removed[1]) / 100) + 1);
  });

  it('0 keeps everything; a bad window is exit 1 with the configuration message', async () => {
    const keep = await pulsegate(['prune', '--database-url', url], undefined, {
      PULSEGATE_RETAIN_EVENTS: '0',
    });
    assert.equal(keep.code, 0, keep.stderr);
    assert.equal(keep.stdout, 'retention 0: every event is kept; nothing to prune\n');
    const bad = await pulsegate(['prune', '--retain-events', '2 years', '--database-url', url]);
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr,
      'pulsegate: --retain-events (or PULSEGATE_RETAIN_EVENTS) must be a number of days, months or years such as 90d, 18m or 3y, or 0 to keep every event: 2 years\n',
    );
  });
});
