/**
 * REST events benchmark (issue 2): seeds N events (default 1,000,000) with `pulsegate seed`, then
 * measures, interleaved in one run, a project's events page 1, the same at page 400, the viewer's
 * `/api/v4/events`, and a baseline Fastify route returning page 1's exact bytes; then the same three
 * routes on a second server started with `--no-page-cache` (every request lists and hydrates).
 * Prints req/s, p99, ratios to the baseline, seed time and the server's peak RSS.
 *
 *   npm run bench -- [--events N] [--rounds R] [--seconds S] [--connections C] [--db sqlite:path]
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openStore } from '../src/store/store.js';
import {
  PINNING,
  type Sample,
  interleave,
  ensureBuilt,
  pinSelf,
  startPulsegate,
  startBaseline,
  rssMb,
  serverPid,
  startNode,
  table,
} from './lib/harness.js';
import { benchToken } from './lib/tokens.js';

if (!pinSelf()) {
  ensureBuilt();
  await main();
}

async function main() {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000000' },
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
      db: { type: 'string' },
    },
  });
  const events = Number(values.events);
  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-bench-'));
  const databaseUrl = values.db ?? `sqlite:${join(dir, 'bench.db')}`;
  const cli = ['bin/pulsegate.js'];

  let seedSeconds: number | null = null;
  if (!values.db) {
    const started = process.hrtime.bigint();
    execFileSync(
      process.execPath,
      [
        ...cli,
        'seed',
        '--events',
        String(events),
        '--users',
        '200',
        '--projects',
        '100',
        '--database-url',
        databaseUrl,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    seedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(`seeded ${events.toLocaleString('en')} events in ${seedSeconds.toFixed(1)} s`);
  }

  // The busiest public project (readable by the token's user without membership) and the busiest
  // author, who gets the token.
  const store = await openStore(databaseUrl);
  const project = await store.db
    .selectFrom('events')
    .innerJoin('projects', 'projects.id', 'events.project_id')
    .where('projects.visibility', '=', 'public')
    .select(['events.project_id', sql<number>`count(*)`.as('n')])
    .groupBy('events.project_id')
    .orderBy('n', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  const author = await store.db
    .selectFrom('events')
    .select(['author_id', sql<number>`count(*)`.as('n')])
    .groupBy('author_id')
    .orderBy('n', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  const token = await benchToken(store, author.author_id);
  await store.close();
  console.log(
    `project ${project.project_id}: ${Number(project.n).toLocaleString('en')} events; ` +
      `author ${author.author_id}: ${Number(author.n).toLocaleString('en')} events`,
  );

  const port = 3700 + Math.floor(Math.random() * 200);
  const serve = (p: number, extra: string[] = []) => startPulsegate(p, databaseUrl, extra);
  const server = await serve(port);
  const cold = await serve(port + 2, ['--no-page-cache']);
  let baseline: Awaited<ReturnType<typeof startNode>> | undefined;
  try {
    const headers = { 'private-token': token };
    const page1Url = `${server.url}/api/v4/projects/${project.project_id}/events`;
    const page1 = await fetch(page1Url, { headers });
    const body = Buffer.from(await page1.arrayBuffer());
    if (page1.status !== 200) throw new Error(`page 1 answered ${page1.status}: ${body}`);
    const bodyFile = join(dir, 'page1.json');
    writeFileSync(bodyFile, body);
    const basePort = port + 1;
    baseline = await startBaseline(basePort, bodyFile);

    const loads = [
      { name: 'baseline (bare Fastify, same bytes)', url: `${baseline.url}/baseline` },
      { name: 'GET /projects/:id/events (page 1)', url: page1Url, headers },
      { name: 'GET /projects/:id/events?page=400', url: `${page1Url}?page=400`, headers },
      { name: 'GET /events (viewer)', url: `${server.url}/api/v4/events`, headers },
      {
        name: 'page 1, no page cache',
        url: `${cold.url}/api/v4/projects/${project.project_id}/events`,
        headers,
      },
      {
        name: 'page 400, no page cache',
        url: `${cold.url}/api/v4/projects/${project.project_id}/events?page=400`,
        headers,
      },
      { name: '/events (viewer), no page cache', url: `${cold.url}/api/v4/events`, headers },
    ];
    let peakRss = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, rssMb(serverPid(server)) ?? 0);
    }, 250);
    const results = await interleave(
      loads,
      {
        rounds: Number(values.rounds),
        seconds: Number(values.seconds),
        connections: Number(values.connections),
        warmup: 2,
      },
      (load, s) => console.log(`  ${load.name}: ${Math.round(s.rps)} req/s, p99 ${s.p99} ms`),
    );
    clearInterval(sampler);

    const base = results.get(loads[0]!.name)!;
    const p1 = results.get(loads[1]!.name)!;
    const p400 = results.get(loads[2]!.name)!;
    const p1Cold = results.get(loads[4]!.name)!;
    const p400Cold = results.get(loads[5]!.name)!;
    const row = (name: string, s: Sample) => [
      name,
      Math.round(s.rps).toLocaleString('en'),
      String(s.p50),
      String(s.p99),
      (s.rps / base.rps).toFixed(2) + '×',
      String(s.errors + s.non2xx),
    ];
    console.log(
      `\nREST events benchmark — ${events.toLocaleString('en')} events, SQLite, ` +
        `${values.connections} connections, ${values.rounds} interleaved rounds × ${values.seconds} s (medians)` +
        (PINNING ? ', server on CPU 0, load on CPU 1' : ', no CPU pinning (taskset missing)') +
        `, page body ${body.length} bytes\n`,
    );
    console.log(
      table([
        ['route', 'req/s', 'p50 ms', 'p99 ms', '× baseline', 'errors'],
        ...loads.map((l) => row(l.name, results.get(l.name)!)),
      ]),
    );
    // Under a closed loop with fixed connections, mean latency is connections / throughput.
    const latencyRatio = p1.rps / p400.rps;
    console.log(`\npage 400 mean latency ÷ page 1: ${latencyRatio.toFixed(2)}× (goal ≤ 1.5×)`);
    console.log(`page 1 throughput ÷ baseline: ${(p1.rps / base.rps).toFixed(2)}× (goal ≥ 0.35×)`);
    console.log(
      `without the page cache: page 400 ÷ page 1 ${(p1Cold.rps / p400Cold.rps).toFixed(2)}×, ` +
        `page 1 ÷ baseline ${(p1Cold.rps / base.rps).toFixed(2)}×`,
    );
    if (seedSeconds !== null)
      console.log(
        `seed of ${events.toLocaleString('en')} events: ${seedSeconds.toFixed(1)} s (goal < 60 s)`,
      );
    console.log(`server peak RSS during the run: ${peakRss.toFixed(0)} MB (goal < 250 MB)`);

    mkdirSync('bench/results', { recursive: true });
    writeFileSync(
      join('bench/results', `rest-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
      JSON.stringify(
        { events, seedSeconds, peakRss, results: Object.fromEntries(results) },
        null,
        2,
      ),
    );
  } finally {
    await server.stop();
    await cold.stop();
    await baseline?.stop();
    if (!values.db) rmSync(dir, { recursive: true, force: true });
  }
}
