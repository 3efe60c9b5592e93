/**
 * Webhook benchmark (issue 11), short by default. In one process, over a fresh database:
 *
 * 1. write throughput: issues opened through the write path (one transaction: the issue, its
 *    event, the in-transaction hooks, the after-commit wake-up), with no hook, then with 5 active
 *    hooks on the project (each write also inserts 5 outbox rows) with the worker paused, then
 *    with the worker delivering to a receiver on 127.0.0.1 meanwhile, in this same process;
 * 2. delivery latency: writes spaced out, the time from the write's commit to the receiver reading
 *    the request, p50 and p99.
 *
 *   node --import tsx bench/webhooks.ts [--writes N] [--concurrency C] [--latency M] [--db URL]
 *
 * The REST write endpoints are not measured here (they are not on main yet); the write path is
 * the one they run, minus HTTP.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { createServices, type Services } from '../src/services/container.js';
import { EventRecorder } from '../src/services/content/recorder.js';
import { type Store, openStore } from '../src/store/store.js';
import { sealHookToken } from '../src/domain/webhook-tokens.js';

const { values } = parseArgs({
  options: {
    writes: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '8' },
    latency: { type: 'string', default: '100' },
    db: { type: 'string' },
  },
});
const WRITES = Number(values.writes);
const CONCURRENCY = Number(values.concurrency);
const LATENCY_SAMPLES = Number(values.latency);

const dir = mkdtempSync(join(tmpdir(), 'pulsegate-bench-webhooks-'));
const databaseUrl = values.db ?? `sqlite:${join(dir, 'bench.db')}`;

/** Arrival times by issue title. */
const arrivals = new Map<string, number>();
let received = 0;
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (c: Buffer) => chunks.push(c));
  request.on('end', () => {
    const at = performance.now();
    received++;
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      object_attributes?: { title?: string };
    };
    const title = body.object_attributes?.title;
    if (title && !arrivals.has(title)) arrivals.set(title, at);
    response.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const port = (receiver.address() as { port: number }).port;

const store = await openStore(databaseUrl);
const config = loadConfig({ databaseUrl, webhooksAllowLocal: true, logLevel: 'silent' }, {});
const services = createServices(config, store);

const user = await store.db
  .insertInto('users')
  .values({
    username: 'bench',
    name: 'Bench',
    email: 'bench@example.com',
    state: 'active',
    password_hash: null,
    admin: 0,
    two_factor_enabled: 0,
    private_profile: 0,
    created_at: Date.now(),
  })
  .returningAll()
  .executeTakeFirstOrThrow();
const project = await store.db
  .insertInto('projects')
  .values({
    namespace: 'bench',
    path: 'hooks',
    full_path: 'bench/hooks',
    name: 'hooks',
    description: '',
    visibility: 'public',
    creator_id: user.id,
    created_at: Date.now(),
  })
  .returningAll()
  .executeTakeFirstOrThrow();

let iid = 0;
/** Opens one issue the way a write does; resolves at commit, with the commit time. */
async function openIssue(s: Services, title: string): Promise<number> {
  const recorder = await store.transaction(async (tx: Store) => {
    const now = Date.now();
    const issue = await tx.db
      .insertInto('issues')
      .values({
        project_id: project.id,
        iid: ++iid,
        title,
        author_id: user.id,
        confidential: 0,
        state: 'opened',
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const rec = new EventRecorder(tx, s.eventHooks, now);
    await rec.record({
      projectId: project.id,
      authorId: user.id,
      action: 'created',
      targetType: 'Issue',
      targetId: issue.id,
      issueId: issue.id,
    });
    return rec;
  });
  const committed = performance.now();
  s.eventHooks.announce(recorder.written, (error) => console.error(error));
  return committed;
}

async function throughput(label: string, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const n = next++;
        await openIssue(services, `${label} ${n}`);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

services.webhooks.worker.start();
// Warm-up (prepared statements, JIT).
await throughput('warm', Math.min(200, WRITES));
const without = await throughput('plain', WRITES);

for (let i = 0; i < 5; i++) {
  await store.webhooks.createHook({
    project_id: project.id,
    url: `http://127.0.0.1:${port}/hook/${i}`,
    token: sealHookToken(`token-${i}`, null, `http://127.0.0.1:${port}/hook/${i}`),
    push_events: 1,
    tag_push_events: 0,
    issues_events: 1,
    confidential_issues_events: 0,
    merge_requests_events: 1,
    note_events: 1,
    confidential_note_events: 0,
    member_events: 0,
    enable_ssl_verification: 1,
    created_at: Date.now(),
  });
}
// The outbox's own cost: the worker paused, each write inserts its 5 delivery rows.
await services.webhooks.worker.stop();
const outboxOnly = await throughput('queued', WRITES);
services.webhooks.worker.start();
// Then with the worker sending in the same process (same core, same SQLite connection) meanwhile.
const withHooks = await throughput('hooked', WRITES);
const backlogStart = performance.now();
while ((await store.webhooks.outstanding()) > 0) await new Promise((r) => setTimeout(r, 20));
const drainMs = performance.now() - backlogStart;
const deliveredDuringRun = received;

// Latency: one write at a time, 20 ms apart, each to 5 hooks; commit → first hook's arrival.
const latencies: number[] = [];
for (let i = 0; i < LATENCY_SAMPLES; i++) {
  const title = `latency ${i}`;
  const committed = await openIssue(services, title);
  while (!arrivals.has(title)) await new Promise((r) => setImmediate(r));
  latencies.push(arrivals.get(title)! - committed);
  await new Promise((r) => setTimeout(r, 20));
}
latencies.sort((a, b) => a - b);

console.log(
  `database: ${store.conn.dialect}, writes per run: ${WRITES}, concurrency: ${CONCURRENCY}`,
);
console.log(`write throughput, no hooks:      ${without.toFixed(0)} writes/s`);
console.log(
  `write throughput, 5 active hooks, worker paused: ${outboxOnly.toFixed(0)} writes/s (${((outboxOnly / without) * 100).toFixed(0)}%)`,
);
console.log(
  `write throughput, 5 active hooks, worker sending: ${withHooks.toFixed(0)} writes/s (${((withHooks / without) * 100).toFixed(0)}%)`,
);
console.log(
  `  ${WRITES * 10} deliveries queued; the backlog left after the runs drained in ${drainMs.toFixed(0)} ms (${deliveredDuringRun} requests received in all)`,
);
console.log(
  `delivery latency, commit → receiver (n=${latencies.length}): p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
);

await services.webhooks.worker.stop();
await store.close();
receiver.close();
if (!values.db) rmSync(dir, { recursive: true, force: true });
