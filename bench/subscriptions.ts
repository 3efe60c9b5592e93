/**
 * Live subscriptions benchmark (issue 10): `pulsegate serve` (built, production mode, one core)
 * with 1,000 open `eventCreated` subscriptions (50 graphql-ws connections of 20, 10 users with 100
 * each, 100 subscribers on each of 10 public projects), while this process writes 50 events per
 * second round-robin into those projects through the event recorder, straight into the database:
 * another process's writes, heard by the server through the database (SQLite: the data-version
 * poll; PostgreSQL: LISTEN/NOTIFY). Reports write-to-delivery latency (commit to arrival, p50/p99
 * over every delivery), missed deliveries and the server's RSS.
 *
 *   node --import tsx bench/subscriptions.ts [--seconds S] [--rate W] [--database-url URL]
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { EventHooks } from '../src/services/activity/event-hooks.js';
import { EventRecorder } from '../src/services/content/recorder.js';
import { type Store, openStore } from '../src/store/store.js';
import { ensureBuilt, pinSelf, rssMb, serverPid, startPulsegate, table } from './lib/harness.js';
import { benchToken } from './lib/tokens.js';

const USERS = 10;
const PROJECTS = 10;
const CONNECTIONS = 50;
const PER_CONNECTION = 20;

async function seed(store: Store) {
  const t0 = Date.UTC(2025, 0, 1);
  const users = await store.db
    .insertInto('users')
    .values(
      Array.from({ length: USERS }, (_, i) => ({
        username: `live${i}`,
        name: `Live ${i}`,
        email: `live${i}@example.com`,
        state: 'active',
        password_hash: null,
        admin: 0,
        two_factor_enabled: 0,
        private_profile: 0,
        created_at: t0,
      })),
    )
    .returning('id')
    .execute();
  const projects = await store.db
    .insertInto('projects')
    .values(
      Array.from({ length: PROJECTS }, (_, i) => ({
        namespace: 'live',
        path: `p${i}`,
        full_path: `live/p${i}`,
        name: `p${i}`,
        description: '',
        visibility: 'public',
        creator_id: users[0]!.id,
        created_at: t0,
      })),
    )
    .returning('id')
    .execute();
  const tokens: string[] = [];
  for (const user of users) tokens.push(await benchToken(store, user.id));
  return { users: users.map((u) => u.id), projects: projects.map((p) => p.id), tokens };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main() {
  if (pinSelf()) return;
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '15' },
      rate: { type: 'string', default: '50' },
      'database-url': { type: 'string' },
    },
  });
  const seconds = Number(values.seconds);
  const rate = Number(values.rate);
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-live-bench-'));
  const databaseUrl = values['database-url'] ?? `sqlite:${join(dir, 'live.db')}`;
  const store = await openStore(databaseUrl);
  const world = await seed(store);
  const port = 40_000 + Math.floor(Math.random() * 10_000);
  const server = await startPulsegate(port, databaseUrl);
  const pid = serverPid(server);
  const rssIdle = rssMb(pid);

  const written = new Map<number, number>();
  const latencies: number[] = [];
  let delivered = 0;
  let errors = 0;
  const received = new Map<number, number>();
  const clients = Array.from({ length: CONNECTIONS }, (_, c) =>
    createClient({
      url: `ws://127.0.0.1:${port}/api/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'PRIVATE-TOKEN': world.tokens[c % USERS]! },
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: () => errors++,
    }),
  );
  const query =
    'subscription($p: ID) { eventCreated(project: $p) { databaseId action createdAt author { username } project { fullPath } } }';
  let subscriber = 0;
  for (const client of clients) {
    for (let s = 0; s < PER_CONNECTION; s++) {
      const project = world.projects[subscriber++ % PROJECTS]!;
      client.subscribe<{ eventCreated: { databaseId: number } }>(
        { query, variables: { p: String(project) } },
        {
          next: (result) => {
            const id = result.data?.eventCreated.databaseId;
            if (id === undefined) return void errors++;
            const at = written.get(id);
            if (at !== undefined) latencies.push(performance.now() - at);
            received.set(id, (received.get(id) ?? 0) + 1);
            delivered++;
          },
          error: () => errors++,
          complete: () => {},
        },
      );
    }
  }

  const hooks = new EventHooks();
  let nextProject = 0;
  const write = async () => {
    const projectId = world.projects[nextProject++ % PROJECTS]!;
    const recorder = await store.transaction(async (tx) => {
      const r = new EventRecorder(tx, hooks, Date.now());
      await r.record({
        projectId,
        authorId: world.users[nextProject % USERS]!,
        action: 'created',
        targetType: null,
        targetId: null,
      });
      return r;
    });
    const id = recorder.written[0]!.id;
    written.set(id, performance.now());
    return id;
  };

  // Warm-up: one write per project until every subscriber has heard one (all subscriptions open).
  const warmStart = Date.now();
  for (;;) {
    delivered = 0;
    for (let p = 0; p < PROJECTS; p++) await write();
    await new Promise((r) => setTimeout(r, 1_500));
    if (delivered >= CONNECTIONS * PER_CONNECTION) break;
    if (Date.now() - warmStart > 60_000) throw new Error(`only ${delivered} subscribers answer`);
  }
  const rssSubscribed = rssMb(pid);
  latencies.length = 0;
  delivered = 0;
  written.clear();
  received.clear();

  const ids: number[] = [];
  const started = performance.now();
  let rssPeak = rssSubscribed ?? 0;
  for (let i = 0; i < seconds * rate; i++) {
    const due = started + (i * 1_000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    ids.push(await write());
    if (i % rate === 0) rssPeak = Math.max(rssPeak, rssMb(pid) ?? 0);
  }
  const elapsed = (performance.now() - started) / 1_000;
  const perEvent = (CONNECTIONS * PER_CONNECTION) / PROJECTS;
  const expected = ids.length * perEvent;
  // Late is not lost: wait (up to 60 s) for every delivery before counting what is missing.
  const drainStart = performance.now();
  while (delivered < expected && performance.now() - drainStart < 60_000) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const rssEnd = rssMb(pid);

  const missing = ids.reduce((n, id) => n + Math.max(0, perEvent - (received.get(id) ?? 0)), 0);
  const sorted = [...latencies].sort((a, b) => a - b);
  const mb = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(0)} MB`);
  console.log(
    `\n${databaseUrl.startsWith('postgres') ? 'PostgreSQL' : 'SQLite'}: ${CONNECTIONS * PER_CONNECTION} subscriptions (${CONNECTIONS} connections), ${ids.length} writes in ${elapsed.toFixed(1)} s (${(ids.length / elapsed).toFixed(1)}/s) by another process, each to ${perEvent} subscribers\n`,
  );
  console.log(
    table([
      ['measure', 'value'],
      ['deliveries', `${delivered} of ${expected} (${missing} missing, ${errors} errors)`],
      ['write-to-delivery p50', `${percentile(sorted, 50).toFixed(1)} ms`],
      ['write-to-delivery p99', `${percentile(sorted, 99).toFixed(1)} ms`],
      ['write-to-delivery max', `${(sorted.at(-1) ?? NaN).toFixed(1)} ms`],
      ['server RSS idle', mb(rssIdle)],
      ['server RSS, 1,000 subscriptions open', mb(rssSubscribed)],
      ['server RSS peak during writes', mb(rssPeak)],
      ['server RSS after', mb(rssEnd)],
    ]),
  );
  await Promise.all(clients.map((c) => c.dispose()));
  await server.stop();
  await store.close();
  if (!values['database-url']) rmSync(dir, { recursive: true, force: true });
}

await main();
