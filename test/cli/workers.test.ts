/**
 * `pulsegate serve --workers 2`: two processes on one port, each with its own listing caches.
 * Requests on fresh connections are spread over both (node:cluster round-robin); after another
 * process appends an event, every answer from either worker shows it: no worker serves a stale
 * cached page or count. SIGTERM stops both and the primary exits 0. A scrape of `/-/metrics`,
 * whichever worker it reaches, counts what both served.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { actionCode } from '../../src/domain/vocabulary.js';
import { openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { BIN, ROOT } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'pulsegate-workers-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `serve --workers 2` on `url`: the port both workers listen on, once both do. */
async function startWorkers(url: string) {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--workers', '2', '--port', '0', '--log-level', 'info', '--database-url', url],
    {
      cwd: ROOT,
      env: { ...process.env, PULSEGATE_RATE_LIMIT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    // Each worker logs its own "Server listening" line; both share the port.
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const ports = [...out.matchAll(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/g)].map(
          (m) => m[1],
        );
        if (ports.length >= 2) {
          assert.equal(ports[0], ports[1]);
          resolve(Number(ports[0]));
        }
      });
      child.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
    });
    return { child, exited, port };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

describe('serve --workers 2', () => {
  it('both workers answer on one port and see another process’s write at once; SIGTERM exits 0', async () => {
    const url = `sqlite:${join(dir, 'pulsegate.db')}`;
    const store = await openStore(url);
    const f = new Fixtures(store);
    const alice = await f.user('alice');
    const project = await f.project('acme/api', alice.id, 'public');
    for (let i = 0; i < 30; i++) {
      await f.event({
        projectId: project.id,
        authorId: alice.id,
        action: 'created',
        createdAt: Date.UTC(2026, 0, 1) + i,
      });
    }
    const { child, exited, port } = await startWorkers(url);
    try {
      const page = async () => {
        // A fresh connection each time, so the primary hands requests to both workers in turn.
        const res = await fetch(
          `http://127.0.0.1:${port}/api/v4/projects/${project.id}/events?per_page=5`,
          {
            headers: { connection: 'close' },
          },
        );
        const body = (await res.json()) as Array<{ id: number }>;
        return {
          status: res.status,
          total: res.headers.get('x-total'),
          ids: body.map((e) => e.id),
        };
      };
      const warm = [];
      for (let i = 0; i < 6; i++) warm.push(await page());
      for (const answer of warm) assert.deepEqual(answer, warm[0]);
      assert.equal(warm[0]!.total, '30');

      const row = await store.transaction((tx) =>
        tx.events.append({
          project_id: project.id,
          author_id: alice.id,
          action: actionCode('closed'),
          target_type: null,
          target_id: null,
          issue_id: null,
          created_at: Date.UTC(2026, 0, 2),
        }),
      );
      for (let i = 0; i < 6; i++) {
        assert.deepEqual(await page(), {
          status: 200,
          total: '31',
          ids: [row.id, ...warm[0]!.ids.slice(0, 4)],
        });
      }
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await store.close();
    }
  });

  it('every scrape of /-/metrics counts what both workers served, whichever worker answers it', async () => {
    const url = `sqlite:${join(dir, 'metrics.db')}`;
    const store = await openStore(url);
    const f = new Fixtures(store);
    const alice = await f.user('alice');
    const project = await f.project('acme/web', alice.id, 'public');
    const last = await f.event({
      projectId: project.id,
      authorId: alice.id,
      action: 'created',
      createdAt: Date.UTC(2026, 0, 1),
    });
    const { child, exited, port } = await startWorkers(url);
    try {
      // Fresh connections: the primary hands them to the two workers in turn, five each.
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/api/v4/projects/${project.id}/events`, {
          headers: { connection: 'close' },
        });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
      // Each scrape on its own connection, so both workers answer some of them.
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/-/metrics`, {
          headers: { connection: 'close' },
        });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
        const text = await res.text();
        const value = (series: string) =>
          text
            .split('\n')
            .find((line) => line.startsWith(`${series} `))
            ?.slice(series.length + 1);
        assert.equal(
          value(
            'pulsegate_http_requests_total{method="GET",route="/api/v4/projects/:id/events",status="200"}',
          ),
          '10',
        );
        // Both workers read one database: the newest id is one value, not a sum of two.
        assert.equal(value('pulsegate_events_newest_id'), String(last.id));
        // One embedded connection per worker.
        assert.equal(value('pulsegate_db_pool_connections{state="total"}'), '2');
      }
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await store.close();
    }
  });
});
