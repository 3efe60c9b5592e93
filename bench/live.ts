/**
 * Live benchmark (issue 13): listings while another process writes. On a seeded database (default
 * 1,000,000 events, 10 projects, 50 users, as `pulsegate seed`), in one interleaved run per setup:
 *
 * - a bare Fastify route serving the hot page's exact bytes (the ceiling; every ratio is to it);
 * - the hot URL (one project's page 1, repeated);
 * - a mix of several hundred listing URLs (projects × filters × pages 1/2/5/50, users × filters,
 *   `/events` and `scope=all`) with 0, 5 and 50 new events per second from another process
 *   (bench/live-writer.ts, through the store's `events.append`, one transaction per event);
 * - GraphQL: the hot query, and a mix of project, user and `events(scope: ALL)` queries at 50
 *   writes per second;
 * - one request at a time with the page cache off: `scope=all` page 3 against one project's page 3,
 *   the first requests of a server just started, then the first request of listings the running
 *   server has never seen.
 *
 * Setups: SQLite with 1 and 2 workers, and PostgreSQL with 2 worker processes when a URL is given.
 * Medians of interleaved rounds, p99, peak RSS of the server's processes. Every sample of a workload
 * follows a sample of the bare route as long, and its ratio is the median of those neighbours'
 * ratios (bench/lib/harness.ts `paired`): this machine's speed drifts too fast for a ratio of
 * medians taken minutes apart.
 *
 *   npm run bench:live -- [--quick] [--events N] [--rounds R] [--seconds S] [--connections C]
 *                         [--pg postgres://…] [--pg-schema S] [--setups sqlite1,sqlite2,pg2]
 *
 * `--pg-schema` measures a schema seeded before (by an earlier run's seed, or `pulsegate seed`),
 * and keeps it: for trying a change on PostgreSQL without seeding again (two and a half minutes).
 *
 * `--quick` is 100,000 events, one round of 2 s: for a busy machine, not for quoting.
 */
import 'reflect-metadata';
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { sql } from 'kysely';
import pg from 'pg';
import { openStore } from '../src/store/store.js';
import {
  LOAD_CPU,
  PINNING,
  type Load,
  type Sample,
  type Started,
  ensureBuilt,
  freePort,
  paired,
  postmaster,
  pinSelf,
  childrenOf,
  median,
  rssMb,
  startBaseline,
  startPulsegate,
  table,
} from './lib/harness.js';
import { benchToken } from './lib/tokens.js';

interface Setup {
  key: string;
  name: string;
  url: string;
  workers: number;
  /** CPUs the server may use: one core leaves the other to the load generator. */
  cpus: string;
}

interface SetupResult {
  setup: Setup;
  samples: Map<string, Sample>;
  /** Each load's median ratio to the bare route measured right before it (see `paired`). */
  ratios: Map<string, number>;
  /** Each load's median ratio of the bare route's CPU per request to its own (see `paired`). */
  costRatios: Map<string, number>;
  latency: Record<string, number>;
  peakRss: number;
  /** Per load: which cache answered how much of it (see `countLookups`), median over samples. */
  caches: Map<string, string>;
  writesPerSecond: Record<string, number>;
}

const WRITE_RATES = [0, 5, 50];

async function main() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      events: { type: 'string' },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      connections: { type: 'string', default: '16' },
      pg: { type: 'string' },
      'pg-schema': { type: 'string' },
      setups: { type: 'string' },
    },
  });
  const quick = values.quick === true;
  const events = Number(values.events ?? (quick ? 100_000 : 1_000_000));
  const rounds = Number(values.rounds ?? (quick ? 1 : 3));
  const seconds = Number(values.seconds ?? (quick ? 2 : 5));
  const connections = Number(values.connections);
  const pgBase = values.pg ?? process.env.PULSEGATE_BENCH_POSTGRES_URL;
  const wanted = (values.setups ?? `sqlite1,sqlite2${pgBase ? ',pg2' : ''}`).split(',');

  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-live-'));
  const sqliteUrl = `sqlite:${join(dir, 'live.db')}`;
  const kept = values['pg-schema'];
  const pgSchema = kept ?? `bench_live_${randomBytes(4).toString('hex')}`;
  const pgUrl = pgBase ? `${pgBase}${pgBase.includes('?') ? '&' : '?'}schema=${pgSchema}` : null;
  const setups: Setup[] = [];
  if (wanted.includes('sqlite1'))
    setups.push({
      key: 'sqlite1',
      name: 'SQLite, 1 process',
      url: sqliteUrl,
      workers: 1,
      cpus: '0',
    });
  if (wanted.includes('sqlite2'))
    setups.push({
      key: 'sqlite2',
      name: 'SQLite, 2 workers',
      url: sqliteUrl,
      workers: 2,
      cpus: '0,1',
    });
  if (wanted.includes('pg2') && pgUrl)
    setups.push({ key: 'pg2', name: 'PostgreSQL, 2 workers', url: pgUrl, workers: 2, cpus: '0,1' });

  const results: SetupResult[] = [];
  try {
    const seeded = new Set<string>();
    for (const setup of setups) {
      if (!seeded.has(setup.url) && !(kept && setup.url === pgUrl)) {
        seed(setup.url, events);
        seeded.add(setup.url);
      }
      results.push(await runSetup(setup, { rounds, seconds, connections, quick }));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (pgBase && pgUrl && !kept) await dropSchema(pgBase, pgSchema);
  }

  console.log(
    `\nLive benchmark: ${events.toLocaleString('en')} events, 10 projects, 50 users; ` +
      `${connections} connections, ${rounds} interleaved round(s) × ${seconds} s, medians; ` +
      'each × is the median of a workload’s rate over the bare route’s measured right before it; ' +
      (PINNING
        ? 'one-process setups on CPU 0 with the load on CPU 1, two-worker setups on both'
        : 'no CPU pinning (taskset missing)') +
      (quick ? '. QUICK RUN: indicative only.' : '.'),
  );
  const header = ['workload', ...results.map((r) => r.setup.name)];
  const names = [...results[0]!.samples.keys()];
  const rows = names.map((name) => [
    name,
    ...results.map((r) => {
      const s = r.samples.get(name)!;
      const ratio = name === BASELINE ? '' : ` (${r.ratios.get(name)!.toFixed(3)}×)`;
      return `${Math.round(s.rps).toLocaleString('en')} req/s${ratio}, p99 ${s.p99} ms${
        s.errors + s.non2xx ? `, ${s.errors + s.non2xx} errors` : ''
      }`;
    }),
  ]);
  const latencyNames = Object.keys(results[0]!.latency);
  for (const name of latencyNames) {
    rows.push([name, ...results.map((r) => `${r.latency[name]!.toFixed(2)} ms`)]);
  }
  rows.push([
    'server peak RSS (all processes)',
    ...results.map((r) => `${r.peakRss.toFixed(0)} MB`),
  ]);
  rows.push([
    'writes achieved (5 / 50 per s asked)',
    ...results.map(
      (r) => `${r.writesPerSecond['5']!.toFixed(1)} / ${r.writesPerSecond['50']!.toFixed(1)}`,
    ),
  ]);
  console.log(table([header, ...rows]));
  console.log(
    '\nWhat the caches answered (from /-/metrics, every worker’s): the share of requests a cache ' +
      'answered and, under writes, how many answers it had to compute again per event written:',
  );
  console.log(
    table([
      header,
      ...names
        .filter((name) => name !== BASELINE)
        .map((name) => [name, ...results.map((r) => r.caches.get(name) ?? 'n/a')]),
    ]),
  );
  // The bare route's rate is often the load generator's (one core for autocannon, which then runs
  // at 80-100% while the bare server idles at 70-80%); CPU time per request is the server's own.
  console.log(
    '\nServer CPU time per request (all its processes, and PostgreSQL’s on PostgreSQL), and the ' +
      'bare route’s over it, neighbour by neighbour (median):',
  );
  console.log(
    table([
      header,
      ...names.map((name) => [
        name,
        ...results.map((r) => {
          const micros = r.samples.get(name)!.cpuMicros;
          if (micros === undefined) return 'n/a';
          const ratio = r.costRatios.get(name);
          return `${micros.toFixed(0)} µs${ratio === undefined ? '' : ` (${ratio.toFixed(3)}×)`}`;
        }),
      ]),
    ]),
  );

  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    join('bench/results', `live-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    JSON.stringify(
      {
        events,
        rounds,
        seconds,
        connections,
        quick,
        results: results.map((r) => ({
          ...r,
          samples: Object.fromEntries(r.samples),
          ratios: Object.fromEntries(r.ratios),
          costRatios: Object.fromEntries(r.costRatios),
          caches: Object.fromEntries(r.caches),
        })),
      },
      null,
      2,
    ),
  );
}

const BASELINE = 'bare route (same bytes as the hot page)';

function seed(url: string, events: number) {
  const started = Date.now();
  execFileSync(
    process.execPath,
    [
      'bin/pulsegate.js',
      'seed',
      '--events',
      String(events),
      '--users',
      '50',
      '--projects',
      '10',
      '--database-url',
      url,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  console.log(
    `seeded ${events.toLocaleString('en')} events (${url.split(':')[0]}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

async function dropSchema(base: string, schema: string) {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** The listing URLs of the mix: what the token's user can read, several hundred of them. */
async function listingMix(url: string) {
  const store = await openStore(url, { migrate: false });
  try {
    // The user with the most memberships gets the token: scope=all spans the most projects.
    const member = await store.db
      .selectFrom('project_members')
      .select(['user_id', sql<number>`count(*)`.as('n')])
      .groupBy('user_id')
      .orderBy('n', 'desc')
      .orderBy('user_id')
      .limit(1)
      .executeTakeFirstOrThrow();
    const mine = new Set(
      (
        await store.db
          .selectFrom('project_members')
          .select('project_id')
          .where('user_id', '=', member.user_id)
          .execute()
      ).map((r) => r.project_id),
    );
    const projects = (
      await store.db.selectFrom('projects').select(['id', 'visibility']).orderBy('id').execute()
    ).filter((p) => p.visibility !== 'private' || mine.has(p.id));
    const busiest = await store.db
      .selectFrom('events')
      .select(['project_id', sql<number>`count(*)`.as('n')])
      .where(
        'project_id',
        'in',
        projects.map((p) => p.id),
      )
      .groupBy('project_id')
      .orderBy('n', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const users = await store.db.selectFrom('users').select('id').orderBy('id').execute();
    const token = await benchToken(store, member.user_id);
    const paths: string[] = [];
    for (const p of projects) {
      for (const filter of ['', 'action=pushed', 'target_type=issue', 'sort=asc']) {
        for (const page of [1, 2, 5, 50])
          paths.push(`/api/v4/projects/${p.id}/events?${filter}&page=${page}`);
      }
      for (const page of [1, 3])
        paths.push(`/api/v4/projects/${p.id}/events?per_page=100&page=${page}`);
    }
    for (const u of users) {
      for (const filter of ['', 'action=pushed']) {
        for (const page of [1, 2])
          paths.push(`/api/v4/users/${u.id}/events?${filter}&page=${page}`);
      }
    }
    for (const filter of ['', 'action=pushed', 'scope=all', 'scope=all&action=closed']) {
      for (const page of [1, 2, 5, 50]) paths.push(`/api/v4/events?${filter}&page=${page}`);
    }
    const gql: string[] = [];
    for (const p of projects) {
      for (const filter of ['', 'filter: { action: PUSHED }, ']) {
        gql.push(
          JSON.stringify({
            query: `{ project(idOrPath: "${p.id}") { events(${filter}first: 20) { ${FIELDS} } } }`,
          }),
        );
      }
    }
    for (const u of users.slice(0, 20)) {
      gql.push(
        JSON.stringify({ query: `{ user(id: "${u.id}") { events(first: 20) { ${FIELDS} } } }` }),
      );
    }
    for (const filter of ['', 'filter: { action: CLOSED }, ']) {
      gql.push(
        JSON.stringify({ query: `{ events(scope: ALL, ${filter}first: 20) { ${FIELDS} } }` }),
      );
    }
    return { token, paths, gql, hotProject: busiest.project_id };
  } finally {
    await store.close();
  }
}

const FIELDS = `nodes { databaseId actionName targetType targetTitle createdAt author { username } } pageInfo { hasNextPage endCursor }`;

async function runSetup(
  setup: Setup,
  options: { rounds: number; seconds: number; connections: number; quick: boolean },
): Promise<SetupResult> {
  console.log(`\n== ${setup.name}`);
  const mix = await listingMix(setup.url);
  console.log(
    `${mix.paths.length} REST listing URLs, ${mix.gql.length} GraphQL queries in the mix`,
  );
  const port = await freePort();
  const server = await startPulsegate(
    port,
    setup.url,
    ['--workers', String(setup.workers)],
    setup.cpus,
  );
  const writer = await startWriter(setup.url);
  let baseline: Started | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-live-body-'));
  try {
    const headers = { 'private-token': mix.token };
    const json = { ...headers, 'content-type': 'application/json' };
    const hotPath = `/api/v4/projects/${mix.hotProject}/events`;
    const hot = await fetch(server.url + hotPath, { headers });
    const body = Buffer.from(await hot.arrayBuffer());
    if (hot.status !== 200) throw new Error(`hot page answered ${hot.status}: ${body}`);
    writeFileSync(join(dir, 'hot.json'), body);

    const achieved: Record<string, number> = {};
    const atRate = (rate: number) => {
      let started = 0;
      let before = 0;
      return {
        before: async () => {
          before = await writer.written();
          started = Date.now();
          await writer.rate(rate);
        },
        after: async () => {
          await writer.rate(0);
          achieved[String(rate)] =
            ((await writer.written()) - before) / ((Date.now() - started) / 1000);
        },
      };
    };
    const bareServer = await startBaseline(await freePort(), join(dir, 'hot.json'));
    baseline = bareServer;
    const bare: Load = {
      name: BASELINE,
      url: `${bareServer.url}/baseline`,
      servers: () => [bareServer.child.pid!],
    };
    // The server's processes, and on PostgreSQL the database's: its backends serve the load too.
    const servers = () => [
      server.child.pid!,
      ...(setup.url.startsWith('postgres') ? postmaster() : []),
    ];
    const lookups = countLookups(server.url);
    const loads: Load[] = [
      { name: 'hot URL (one project, page 1)', url: server.url + hotPath, headers, servers },
      ...WRITE_RATES.map((rate) => ({
        name: `REST mix, ${rate} writes/s`,
        url: server.url + mix.paths[0]!,
        headers,
        servers,
        paths: mix.paths,
        ...atRate(rate),
      })),
      {
        name: 'scope=all page 3, 50 writes/s',
        url: `${server.url}/api/v4/events?scope=all&page=3`,
        headers,
        servers,
        ...atRate(50),
      },
      {
        name: 'GraphQL hot query (project, first 20)',
        url: `${server.url}/api/graphql`,
        method: 'POST',
        headers: json,
        servers,
        body: mix.gql[0]!,
      },
      {
        name: 'GraphQL mix, 50 writes/s',
        url: `${server.url}/api/graphql`,
        method: 'POST',
        headers: json,
        servers,
        body: mix.gql[0]!,
        bodies: mix.gql,
        ...atRate(50),
      },
    ];
    let peakRss = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, treeRss(server.child.pid));
    }, 250);
    const { samples, ratios, costRatios } = await paired(
      bare,
      loads.map(lookups.around),
      {
        rounds: options.rounds,
        seconds: options.seconds,
        connections: options.connections,
        warmup: 1,
      },
      (load, s, ratio) =>
        console.log(
          `  ${load.name}: ${Math.round(s.rps)} req/s, p99 ${s.p99} ms (${ratio.toFixed(3)}× the bare route just before), ${s.cpuMicros?.toFixed(0) ?? '?'} µs CPU a request`,
        ),
    );
    clearInterval(sampler);
    const writesPerSecond = { '5': achieved['5'] ?? 0, '50': achieved['50'] ?? 0 };

    // One request at a time, page cache off, on a server that has seen nothing yet.
    const cold = await startPulsegate(await freePort(), setup.url, ['--no-page-cache'], setup.cpus);
    const latency: Record<string, number> = {};
    try {
      const n = options.quick ? 5 : 15;
      // What one request at a time costs with nothing to compute: the floor under every latency.
      const bareTimes: number[] = [];
      for (let i = 0; i < n * 4; i++) bareTimes.push(await timed(bare.url, {}));
      latency['bare route, one request at a time, median'] = median(bareTimes);
      // Two sets of listings, none in both and none asked twice (a page of a listing already
      // asked would find its count and checkpoints kept, and measure the cache).
      const [bootSet, runningSet] = firstPages(mix.paths, n * 2);
      // Right after boot every request also pays for compiling the code it runs.
      const booting: number[] = [];
      for (const path of bootSet!) booting.push(await timed(cold.url + path, headers));
      latency['first requests after boot, median'] = median(booting);
      // A running server meeting a listing it has never seen: its count, seek and page from the
      // database (other listings were served before, so the code is compiled).
      const firsts: number[] = [];
      for (const path of runningSet!) firsts.push(await timed(cold.url + path, headers));
      latency['first request of a listing (running server), median'] = median(firsts);
      latency['first request of a listing (running server), max'] = Math.max(...firsts);
      const projectPage3: number[] = [];
      const allPage3: number[] = [];
      for (let i = 0; i < n; i++) {
        projectPage3.push(await timed(`${cold.url}${hotPath}?page=3`, headers));
        allPage3.push(await timed(`${cold.url}/api/v4/events?scope=all&page=3`, headers));
      }
      latency['one project page 3, page cache off'] = median(projectPage3);
      latency['scope=all page 3, page cache off'] = median(allPage3);
    } finally {
      await cold.stop();
    }
    for (const [name, ms] of Object.entries(latency)) console.log(`  ${name}: ${ms.toFixed(2)} ms`);
    return {
      setup,
      samples,
      ratios,
      costRatios,
      latency,
      peakRss,
      writesPerSecond,
      caches: lookups.summary(),
    };
  } finally {
    await writer.stop();
    await server.stop();
    await baseline?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `count` paths spread evenly over the mix (different listings, never repeated); another `shift`
 * gives other listings (when the mix holds at least twice `count`).
 */
function spread(paths: string[], count: number, shift = 0): string[] {
  const step = Math.max(1, Math.floor(paths.length / count));
  return paths.filter((_, i) => i % step === shift % step).slice(0, count);
}

/**
 * Two disjoint sets of `count` paths, each of a different listing (the path without its page and
 * page size), spread evenly over the mix, with pages taken in turn from what the mix asks.
 */
function firstPages(paths: string[], count: number): [string[], string[]] {
  const byListing = new Map<string, string[]>();
  for (const path of paths) {
    const listing = path.replace(/[?&](page|per_page)=\d+/g, '');
    byListing.set(listing, [...(byListing.get(listing) ?? []), path]);
  }
  const picked = spread([...byListing.keys()], count * 2).map((listing, i) => {
    const pages = byListing.get(listing)!;
    return pages[i % pages.length]!;
  });
  return [picked.filter((_, i) => i % 2 === 0), picked.filter((_, i) => i % 2 === 1)];
}

/**
 * One request's time as curl would see it: node:http over a kept-alive connection (fetch adds
 * 0.25-0.3 ms of its own per request on this machine, measured against the bare route).
 */
const oneAtATime = new http.Agent({ keepAlive: true, maxSockets: 1 });

function timed(url: string, headers: Record<string, string>): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: oneAtATime }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          if (res.statusCode !== 200) {
            reject(new Error(`${url} answered ${res.statusCode}: ${Buffer.concat(chunks)}`));
            return;
          }
          resolve(Number(process.hrtime.bigint() - started) / 1e6);
        });
      })
      .on('error', reject);
  });
}

/** RSS of a process and its children (a cluster primary and its workers), in MB. */
function treeRss(pid: number | undefined): number {
  if (!pid) return 0;
  let total = rssMb(pid) ?? 0;
  for (const child of childrenOf(pid)) total += rssMb(child) ?? 0;
  return total;
}

/**
 * Cache lookups and the newest event id, read from the server's `/-/metrics` (the whole server's:
 * with workers, their primary sums them) around each sample of a load, outside its CPU window.
 * For each load it reports the cache that saw the most lookups: the share it answered, and under
 * writes how many misses each new event caused (the listings a write made compute again).
 */
function countLookups(base: string) {
  const read = async () => {
    const text = await (await fetch(`${base}/-/metrics`)).text();
    const counts = new Map<string, number>();
    for (const line of text.split('\n')) {
      const lookup = /^pulsegate_cache_lookups_total\{(.*)\} (\d+)$/.exec(line);
      if (lookup) {
        const cache = /cache="(\w+)"/.exec(lookup[1]!)![1]!;
        const result = /result="(\w+)"/.exec(lookup[1]!)![1]!;
        counts.set(`${cache} ${result}`, Number(lookup[2]));
      }
      const newest = /^pulsegate_events_newest_id (\d+)$/.exec(line);
      if (newest) counts.set('newest', Number(newest[1]));
    }
    return counts;
  };
  const samples = new Map<string, Array<{ cache: string; share: number; perWrite?: number }>>();
  return {
    around(load: Load): Load {
      let start = new Map<string, number>();
      return {
        ...load,
        before: async () => {
          await load.before?.();
          start = await read();
        },
        after: async () => {
          const end = await read();
          await load.after?.();
          const delta = (key: string) => (end.get(key) ?? 0) - (start.get(key) ?? 0);
          let best: { cache: string; hits: number; misses: number } | undefined;
          for (const cache of ['response', 'rest_page', 'graphql_result', 'graphql_window']) {
            const hits = delta(`${cache} hit`);
            const misses = delta(`${cache} miss`);
            if (!best || hits + misses > best.hits + best.misses) best = { cache, hits, misses };
          }
          if (!best || best.hits + best.misses === 0) return;
          const writes = delta('newest');
          const list = samples.get(load.name) ?? [];
          list.push({
            cache: best.cache,
            share: best.hits / (best.hits + best.misses),
            ...(writes > 0 ? { perWrite: best.misses / writes } : {}),
          });
          samples.set(load.name, list);
        },
      };
    },
    summary(): Map<string, string> {
      const out = new Map<string, string>();
      for (const [name, all] of samples) {
        // The first sample of each load is its warm-up (`paired` runs those first): not quoted.
        const list = all.length > 1 ? all.slice(1) : all;
        const share = median(list.map((s) => s.share));
        const perWrite = list.every((s) => s.perWrite !== undefined)
          ? median(list.map((s) => s.perWrite!))
          : undefined;
        out.set(
          name,
          `${list[0]!.cache} ${(share * 100).toFixed(1)}%` +
            (perWrite === undefined ? '' : `, ${perWrite.toFixed(1)} misses a write`),
        );
      }
      return out;
    },
  };
}

/** The writer process (bench/live-writer.ts), on the load core: its rate is set per load. */
async function startWriter(url: string) {
  const child: ChildProcess = fork('bench/live-writer.ts', [url], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (PINNING && child.pid)
    execFileSync('taskset', ['-pc', LOAD_CPU, String(child.pid)], { stdio: 'ignore' });
  const reply = <T>(match: (m: Record<string, unknown>) => boolean) =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`writer exited (${code})`));
      const onMessage = (m: Record<string, unknown>) => {
        if (!match(m)) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m as T);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  await reply((m) => m.ready === true);
  return {
    async rate(rate: number) {
      const ack = reply((m) => m.rate === rate);
      child.send({ rate });
      await ack;
    },
    async written(): Promise<number> {
      const answer = reply<{ written: number }>((m) => typeof m.written === 'number');
      child.send({ report: true });
      return (await answer).written;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

// Last: main() reads the constants above.
if (!pinSelf()) {
  ensureBuilt();
  await main();
}
