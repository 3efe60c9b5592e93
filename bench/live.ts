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
 * - the starred and followed feeds (issue 33: `scope=starred`, `scope=followed`, page 3 at 50 writes
 *   per second) of the benched user, who stars 500 projects and follows 300 users (`seedSocial`);
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
 *                         [--pg postgres://…] [--pg-schema S] [--sqlite-db F]
 *                         [--setups sqlite1,sqlite2,pg2]
 *                         [--before <checkout dir>] [--help]
 *
 * `--pg-schema` measures a schema seeded before (by an earlier run's seed, or `pulsegate seed`),
 * and keeps it: for trying a change on PostgreSQL without seeding again (two and a half minutes).
 * `--sqlite-db <file>` does the same for SQLite (seeding 10 million events takes minutes).
 *
 * `--quick` is 100,000 events, one round of 2 s: for a busy machine, not for quoting.
 *
 * `--before <dir>` compares this checkout (after) with another (before, built there): both
 * servers run side by side on the same database and every workload is measured on each in every
 * round, one right after the other (see `paired`'s groups), each with its own writer process from
 * its own checkout. When the two checkouts' migrations differ a shared database would serve one
 * of them a schema it was not written for (and a server refuses migrations it does not know), so
 * each then gets its own, seeded by its own checkout from the same seed. Default 4 rounds: each
 * build goes first equally often.
 */
import 'reflect-metadata';
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { sql } from 'kysely';
import pg from 'pg';
import { openStore } from '../src/store/store.js';
import {
  LOAD_CPU,
  PINNING,
  SERVE_FLAGS,
  type Load,
  type Sample,
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
  /** With `--before`: the before server's database (`url` itself unless the migrations differ). */
  beforeUrl?: string;
  workers: number;
  /** CPUs the server may use: one core leaves the other to the load generator. */
  cpus: string;
}

/** `--before`'s checkout. */
interface Build {
  dir: string;
  /** `git describe` of it, for the record. */
  commit: string;
}

interface SideResult {
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

interface SetupResult extends SideResult {
  setup: Setup;
  /** With `--before`: the same for the before server (its loads named as the after server's). */
  before?: SideResult;
  /** With `--before`: per workload, each round's sample of both (neighbours; see `compare`). */
  rounds?: Map<string, { after: Neighbours[]; before: Neighbours[] }>;
}

/** One sample of a workload, its ratio to the bare route's sample right before it, and that one. */
interface Neighbours {
  sample: Sample;
  ratio: number;
  bare: Sample;
}

const WRITE_RATES = [0, 5, 50];

/** `--help`: what the run measures and its options. */
const usage =
  () => `Live benchmark: listings while another process writes (see the top of bench/live.ts).

  npm run bench:live -- [--quick] [--events N] [--rounds R] [--seconds S] [--connections C]
                        [--pg postgres://…] [--pg-schema S] [--setups sqlite1,sqlite2,pg2]
                        [--before <checkout dir>]

Workloads: the hot URL, the REST mix at 0, 5 and 50 writes/s, scope=all, scope=starred and
scope=followed page 3 at 50 writes/s (the benched user stars ${STARS} projects and follows
${FOLLOWS} users), GraphQL's hot query and mix, and one request at a time with the page cache off.`;

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
      'sqlite-db': { type: 'string' },
      setups: { type: 'string' },
      before: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(usage());
    return;
  }
  const quick = values.quick === true;
  const before = values.before === undefined ? undefined : checkout(values.before);
  const events = Number(values.events ?? (quick ? 100_000 : 1_000_000));
  const rounds = Number(values.rounds ?? (quick ? 1 : before ? 4 : 3));
  const seconds = Number(values.seconds ?? (quick ? 2 : 5));
  const connections = Number(values.connections);
  const pgBase = values.pg ?? process.env.PULSEGATE_BENCH_POSTGRES_URL;
  const wanted = (values.setups ?? `sqlite1,sqlite2${pgBase ? ',pg2' : ''}`).split(',');

  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-live-'));
  const keptSqlite = values['sqlite-db'];
  const sqliteUrl = `sqlite:${keptSqlite ? resolve(keptSqlite) : join(dir, 'live.db')}`;
  const kept = values['pg-schema'];
  const pgSchema = kept ?? `bench_live_${randomBytes(4).toString('hex')}`;
  const pgUrlOf = (schema: string) =>
    pgBase ? `${pgBase}${pgBase.includes('?') ? '&' : '?'}schema=${schema}` : null;
  const pgUrl = pgUrlOf(pgSchema);
  // The before server shares each database unless the migrations differ (see the top).
  const shared = !before || sameMigrations(process.cwd(), before.dir);
  const sqliteBeforeUrl = shared ? sqliteUrl : `sqlite:${join(dir, 'live-before.db')}`;
  const pgBeforeSchema = shared ? pgSchema : `${pgSchema}_before`;
  const pgBeforeUrl = pgUrlOf(pgBeforeSchema);
  if (before)
    console.log(
      `before: ${before.dir} (${before.commit}), after: ${process.cwd()} (${describe('.')}); ` +
        (shared
          ? 'the same migrations, so one database each setup serves both'
          : 'their migrations differ, so each gets its own database from the same seed'),
    );
  const setups: Setup[] = [];
  const beforeOf = (url: string) => (before ? { beforeUrl: url } : {});
  if (wanted.includes('sqlite1'))
    setups.push({
      key: 'sqlite1',
      name: 'SQLite, 1 process',
      url: sqliteUrl,
      ...beforeOf(sqliteBeforeUrl),
      workers: 1,
      cpus: '0',
    });
  if (wanted.includes('sqlite2'))
    setups.push({
      key: 'sqlite2',
      name: 'SQLite, 2 workers',
      url: sqliteUrl,
      ...beforeOf(sqliteBeforeUrl),
      workers: 2,
      cpus: '0,1',
    });
  if (wanted.includes('pg2') && pgUrl && pgBeforeUrl)
    setups.push({
      key: 'pg2',
      name: 'PostgreSQL, 2 workers',
      url: pgUrl,
      ...beforeOf(pgBeforeUrl),
      workers: 2,
      cpus: '0,1',
    });

  const results: SetupResult[] = [];
  try {
    const seeded = new Set<string>();
    for (const setup of setups) {
      const databases: [string, string][] = [[setup.url, '.']];
      if (before && setup.beforeUrl !== setup.url) databases.push([setup.beforeUrl!, before.dir]);
      for (const [url, cwd] of databases) {
        if (seeded.has(url) || (kept && url.startsWith('postgres'))) continue;
        if (keptSqlite && url === sqliteUrl) continue;
        seed(url, events, cwd);
        seeded.add(url);
      }
      results.push(await runSetup(setup, { rounds, seconds, connections, quick }, before));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (pgBase && pgUrl && !kept) {
      await dropSchema(pgBase, pgSchema);
      if (pgBeforeSchema !== pgSchema) await dropSchema(pgBase, pgBeforeSchema);
    }
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
  if (before) {
    for (const result of results) console.log(compare(result));
  } else printTables(results);

  const plain = (side: SideResult) => ({
    ...side,
    samples: Object.fromEntries(side.samples),
    ratios: Object.fromEntries(side.ratios),
    costRatios: Object.fromEntries(side.costRatios),
    caches: Object.fromEntries(side.caches),
  });
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
        ...(before ? { after: describe('.'), before: before.commit } : {}),
        results: results.map(({ before: beforeSide, rounds: perRound, ...r }) => ({
          ...plain(r),
          ...(beforeSide ? { before: plain(beforeSide) } : {}),
          ...(perRound ? { rounds: Object.fromEntries(perRound) } : {}),
        })),
      },
      null,
      2,
    ),
  );
}

/** The tables of one build's run: rates and ratios, latencies, caches, CPU per request. */
function printTables(results: SetupResult[]) {
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
}

/**
 * One setup's before and after: per workload each build's ratio to the bare route and its CPU per
 * request (medians), after over before for both (the median, over rounds, of the two neighbours'
 * quotient: they were measured a few seconds apart), p99, and the bare route's rate beside it.
 */
function compare(result: SetupResult): string {
  const before = result.before!;
  const perRound = (name: string, value: (n: Neighbours) => number | undefined) => {
    const { after: a, before: b } = result.rounds!.get(name)!;
    const quotients = a.flatMap((n, i) => {
      const [x, y] = [value(n), b[i] && value(b[i])];
      return x && y ? [x / y] : [];
    });
    return quotients.length ? median(quotients).toFixed(3) : 'n/a';
  };
  const micros = (s: Sample | undefined) =>
    s?.cpuMicros === undefined ? 'n/a' : `${s.cpuMicros.toFixed(0)} µs`;
  const rows = [...result.rounds!.keys()].map((name) => {
    const { after: a, before: b } = result.rounds!.get(name)!;
    const bare = median([...a, ...b].map((n) => n.bare.rps));
    return [
      name,
      `${before.ratios.get(name)!.toFixed(3)}×`,
      `${result.ratios.get(name)!.toFixed(3)}×`,
      perRound(name, (n) => n.ratio),
      micros(before.samples.get(name)),
      micros(result.samples.get(name)),
      perRound(name, (n) => n.sample.cpuMicros),
      `${before.samples.get(name)!.p99} ms`,
      `${result.samples.get(name)!.p99} ms`,
      Math.round(bare).toLocaleString('en'),
    ];
  });
  const bare = result.samples.get(BASELINE)!;
  const other = [
    ...Object.keys(result.latency).map((name) => [
      name,
      `${before.latency[name]?.toFixed(2) ?? 'n/a'} ms`,
      `${result.latency[name]!.toFixed(2)} ms`,
    ]),
    [
      'server peak RSS (all processes)',
      `${before.peakRss.toFixed(0)} MB`,
      `${result.peakRss.toFixed(0)} MB`,
    ],
    ...['5', '50'].map((rate) => [
      `writes achieved (${rate} per s asked)`,
      (before.writesPerSecond[rate] ?? 0).toFixed(1),
      (result.writesPerSecond[rate] ?? 0).toFixed(1),
    ]),
  ];
  return [
    `\n${result.setup.name}: before and after, interleaved (× is to the bare route's sample right ` +
      `before; after/before is the median over rounds of the neighbours' quotient; CPU after/before ` +
      `above 1 means after costs more). Bare route: ${Math.round(bare.rps).toLocaleString('en')} ` +
      `req/s, ${micros(bare)} CPU a request, p99 ${bare.p99} ms, ${bare.errors + bare.non2xx} errors; ` +
      `errors before ${errorsOf(before)}, after ${errorsOf(result)}.`,
    table([
      [
        'workload',
        'before ×',
        'after ×',
        'after/before',
        'CPU before',
        'CPU after',
        'CPU after/before',
        'p99 before',
        'p99 after',
        'bare req/s',
      ],
      ...rows,
    ]),
    '',
    table([['one request at a time, and the rest', 'before', 'after'], ...other]),
  ].join('\n');
}

/** Failed requests (transport errors and non-2xx answers) over a build's workloads. */
function errorsOf(side: SideResult): number {
  return [...side.samples]
    .filter(([name]) => name !== BASELINE)
    .reduce((total, [, s]) => total + s.errors + s.non2xx, 0);
}

const BASELINE = 'bare route (same bytes as the hot page)';

/**
 * Another checkout, built (its own `dist/`), after checking it knows every command and flag this
 * benchmark gives its `pulsegate`.
 */
function checkout(path: string): Build {
  const dir = resolve(path);
  if (!existsSync(join(dir, 'bin/pulsegate.js'))) throw new Error(`${dir}: no bin/pulsegate.js`);
  ensureBuilt(dir);
  const wanted: [string[], string[]][] = [
    [['serve'], [...SERVE_FLAGS, '--no-page-cache']],
    [['seed'], ['--events', '--users', '--projects', '--database-url']],
    [
      ['tokens', 'create'],
      ['--user', '--name', '--scopes', '--database-url'],
    ],
  ];
  for (const [command, flags] of wanted) {
    const help = execFileSync(process.execPath, ['bin/pulsegate.js', ...command, '--help'], {
      cwd: dir,
      encoding: 'utf8',
    });
    const missing = flags.filter((flag) => !new RegExp(`${flag}\\b`).test(help));
    if (missing.length)
      throw new Error(`${dir}: pulsegate ${command.join(' ')} lacks ${missing.join(', ')}`);
  }
  return { dir, commit: describe(dir) };
}

function describe(dir: string): string {
  return execFileSync('git', ['describe', '--always', '--dirty'], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
}

/** Whether two checkouts hold the same migrations (by file name). */
function sameMigrations(a: string, b: string): boolean {
  const names = (dir: string) => {
    try {
      return readdirSync(join(dir, 'src/store/migrations'))
        .filter((name) => /^\d+_/.test(name))
        .sort()
        .join();
    } catch {
      return `none in ${dir}`;
    }
  };
  return names(a) === names(b);
}

/** A token for `user` in a database of the checkout at `cwd`'s, minted by its own CLI. */
function mintToken(cwd: string, url: string, user: string): string {
  return execFileSync(
    process.execPath,
    [
      'bin/pulsegate.js',
      'tokens',
      'create',
      '--user',
      user,
      '--name',
      'bench',
      '--scopes',
      'api',
      '--database-url',
      url,
    ],
    // Its notice on stderr is for people; a failure carries it in the error.
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  ).trim();
}

/** Seeds `url` with the `pulsegate` of the checkout at `cwd`. */
function seed(url: string, events: number, cwd = '.') {
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
    { stdio: ['ignore', 'ignore', 'inherit'], cwd },
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
      await store.db
        .selectFrom('projects')
        .select(['id', 'visibility'])
        .where('namespace', '<>', SOCIAL_NAMESPACE)
        .orderBy('id')
        .execute()
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
    const users = await store.db
      .selectFrom('users')
      .select('id')
      .where('username', 'not like', `${SOCIAL_NAMESPACE}-%`)
      .orderBy('id')
      .execute();
    const token = await benchToken(store, member.user_id);
    const { username } = await store.db
      .selectFrom('users')
      .select('username')
      .where('id', '=', member.user_id)
      .executeTakeFirstOrThrow();
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
    return {
      token,
      user: username,
      userId: member.user_id,
      paths,
      gql,
      hotProject: busiest.project_id,
    };
  } finally {
    await store.close();
  }
}

/** The stars and follows of the benched user (issue 33's sizes: GitLab's 300 follows at most). */
const STARS = 500;
const FOLLOWS = 300;
/** The namespace (and username prefix) of the empty projects and users that make up the numbers. */
const SOCIAL_NAMESPACE = 'bench-social';

/**
 * The benched user stars `STARS` projects and follows `FOLLOWS` users: every seeded one first
 * (those have the events), then empty public projects and users made for it, which the feeds
 * still walk (one index probe each) and the mix leaves out. Idempotent, for `--pg-schema`.
 */
async function seedSocial(url: string, userId: number) {
  const store = await openStore(url, { migrate: false });
  try {
    const { db } = store;
    const now = Date.now();
    const projectCount = await db.selectFrom('projects').select('id').execute();
    for (let i = projectCount.length; i < STARS; i++) {
      await db
        .insertInto('projects')
        .values({
          namespace: SOCIAL_NAMESPACE,
          path: `p${i}`,
          full_path: `${SOCIAL_NAMESPACE}/p${i}`,
          name: `p${i}`,
          description: 'Starred by the benched user',
          visibility: 'public',
          creator_id: userId,
          created_at: now,
        })
        .execute();
    }
    const userCount = await db.selectFrom('users').select('id').execute();
    for (let i = userCount.length; i <= FOLLOWS; i++) {
      await db
        .insertInto('users')
        .values({
          username: `${SOCIAL_NAMESPACE}-${i}`,
          name: `Followed ${i}`,
          email: `${SOCIAL_NAMESPACE}-${i}@example.com`,
          state: 'active',
          password_hash: null,
          admin: 0,
          two_factor_enabled: 0,
          private_profile: 0,
          created_at: now,
        })
        .execute();
    }
    const projects = await db
      .selectFrom('projects')
      .select('id')
      .orderBy('id')
      .limit(STARS)
      .execute();
    const users = await db
      .selectFrom('users')
      .select('id')
      .where('id', '<>', userId)
      .orderBy('id')
      .limit(FOLLOWS)
      .execute();
    await db
      .insertInto('project_stars')
      .values(projects.map((p) => ({ user_id: userId, project_id: p.id, created_at: now })))
      .onConflict((oc) => oc.doNothing())
      .execute();
    await db
      .insertInto('user_follows')
      .values(users.map((u) => ({ follower_id: userId, followee_id: u.id, created_at: now })))
      .onConflict((oc) => oc.doNothing())
      .execute();
    console.log(
      `the benched user stars ${projects.length} projects and follows ${users.length} users`,
    );
  } finally {
    await store.close();
  }
}

const FIELDS = `nodes { databaseId actionName targetType targetTitle createdAt author { username } } pageInfo { hasNextPage endCursor }`;

type Mix = Awaited<ReturnType<typeof listingMix>>;

async function runSetup(
  setup: Setup,
  options: { rounds: number; seconds: number; connections: number; quick: boolean },
  before?: Build,
): Promise<SetupResult> {
  console.log(`\n== ${setup.name}`);
  const mix = await listingMix(setup.url);
  await seedSocial(setup.url, mix.userId);
  console.log(
    `${mix.paths.length} REST listing URLs, ${mix.gql.length} GraphQL queries in the mix`,
  );
  const hotPath = `/api/v4/projects/${mix.hotProject}/events`;
  const stops: (() => Promise<void>)[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-live-body-'));
  try {
    const after = await startBuild(setup, setup.url, mix.token, '.', stops);
    const builds = [{ suffix: '', ...after }];
    if (before) {
      const url = setup.beforeUrl!;
      const token = url === setup.url ? mix.token : mintToken(before.dir, url, mix.user);
      builds.push({ suffix: BEFORE, ...(await startBuild(setup, url, token, before.dir, stops)) });
    }
    const pages = await Promise.all(builds.map((b) => b.get(hotPath)));
    writeFileSync(join(dir, 'hot.json'), pages[0]!);
    // Links in a page name the server's own origin: the same data reads alike without it.
    const [a, b] = pages.map((page, i) => page.toString().replaceAll(builds[i]!.server.url, ''));
    if (b !== undefined && a !== b)
      console.log('  note: the two builds answer the hot page differently');

    const bareServer = await startBaseline(await freePort(), join(dir, 'hot.json'));
    stops.push(() => bareServer.stop());
    const bare: Load = {
      name: BASELINE,
      url: `${bareServer.url}/baseline`,
      servers: () => [bareServer.child.pid!],
    };
    const loads = builds.map((b) =>
      b.loads(mix, hotPath).map((load) => ({ ...load, name: load.name + b.suffix })),
    );
    let peakRss = builds.map(() => 0);
    const sampler = setInterval(() => {
      peakRss = builds.map((b, i) => Math.max(peakRss[i]!, treeRss(b.server.child.pid)));
    }, 250);
    const neighbours = new Map<string, Neighbours[]>();
    const { samples, ratios, costRatios } = await paired(
      bare,
      loads[0]!.map((load, i) => loads.map((list) => list[i]!)),
      {
        rounds: options.rounds,
        seconds: options.seconds,
        connections: options.connections,
        warmup: 1,
      },
      (load, s, ratio, base) => {
        neighbours.set(load.name, [
          ...(neighbours.get(load.name) ?? []),
          { sample: s, ratio, bare: base },
        ]);
        console.log(
          `  ${load.name}: ${Math.round(s.rps)} req/s, p99 ${s.p99} ms (${ratio.toFixed(3)}× the bare route just before), ${s.cpuMicros?.toFixed(0) ?? '?'} µs CPU a request`,
        );
      },
    );
    clearInterval(sampler);

    const sides: SideResult[] = [];
    for (const [i, b] of builds.entries()) {
      const latency = await coldLatency(setup, b, mix, bare.url, hotPath, options.quick);
      for (const [name, ms] of Object.entries(latency))
        console.log(`  ${name}${b.suffix}: ${ms.toFixed(2)} ms`);
      const own = <T>(map: Map<string, T>) => ofBuild(map, b.suffix);
      sides.push({
        samples: own(samples),
        ratios: own(ratios),
        costRatios: own(costRatios),
        latency,
        peakRss: peakRss[i]!,
        writesPerSecond: b.writesPerSecond(),
        caches: b.caches(),
      });
    }
    return {
      setup,
      ...sides[0]!,
      ...(before
        ? {
            before: sides[1]!,
            rounds: new Map(
              loads[0]!.map((load) => [
                load.name,
                { after: neighbours.get(load.name)!, before: neighbours.get(load.name + BEFORE)! },
              ]),
            ),
          }
        : {}),
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the before build's loads are named: the after build's names, and this. */
const BEFORE = ' (before)';

/** A build's entries of a map keyed by load name, under the after build's names, and the bare route's. */
function ofBuild<T>(map: Map<string, T>, suffix: string): Map<string, T> {
  const out = new Map<string, T>();
  for (const [name, value] of map) {
    if (name === BASELINE) out.set(name, value);
    else if (name.endsWith(BEFORE) === (suffix === BEFORE))
      out.set(name.slice(0, name.length - suffix.length), value);
  }
  return out;
}

/**
 * One build's server and writer on `url`, from the checkout at `cwd` (its `stop`s pushed on
 * `stops`), and the workloads measured on it.
 */
async function startBuild(
  setup: Setup,
  url: string,
  token: string,
  cwd: string,
  stops: (() => Promise<void>)[],
) {
  const server = await startPulsegate(
    await freePort(),
    url,
    ['--workers', String(setup.workers)],
    setup.cpus,
    cwd,
  );
  stops.push(() => server.stop());
  const writer = await startWriter(url, cwd);
  stops.push(() => writer.stop());
  const headers = { 'private-token': token };
  const json = { ...headers, 'content-type': 'application/json' };
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
  // The server's processes, and on PostgreSQL the database's: its backends serve the load too.
  const servers = () => [server.child.pid!, ...(url.startsWith('postgres') ? postmaster() : [])];
  const lookups = countLookups(server.url);
  return {
    server,
    url,
    cwd,
    headers,
    async get(path: string): Promise<Buffer> {
      const res = await fetch(server.url + path, { headers });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${body}`);
      return body;
    },
    loads: (mix: Mix, hotPath: string): Load[] => {
      const graphql = {
        url: `${server.url}/api/graphql`,
        method: 'POST' as const,
        headers: json,
        servers,
        body: mix.gql[0]!,
      };
      return [
        { name: 'hot URL (one project, page 1)', url: server.url + hotPath, headers, servers },
        ...WRITE_RATES.map((rate) => ({
          name: `REST mix, ${rate} writes/s`,
          url: server.url + mix.paths[0]!,
          headers,
          servers,
          paths: mix.paths,
          ...atRate(rate),
        })),
        ...['all', 'starred', 'followed'].map((scope) => ({
          name: `scope=${scope} page 3, 50 writes/s`,
          url: `${server.url}/api/v4/events?scope=${scope}&page=3`,
          headers,
          servers,
          ...atRate(50),
        })),
        { name: 'GraphQL hot query (project, first 20)', ...graphql },
        { name: 'GraphQL mix, 50 writes/s', ...graphql, bodies: mix.gql, ...atRate(50) },
      ].map(lookups.around);
    },
    writesPerSecond: () => ({ '5': achieved['5'] ?? 0, '50': achieved['50'] ?? 0 }),
    caches: () => lookups.summary(),
  };
}

/** One request at a time, page cache off, on a server of `build`'s that has seen nothing yet. */
async function coldLatency(
  setup: Setup,
  build: { url: string; cwd: string; headers: Record<string, string> },
  mix: Mix,
  bareUrl: string,
  hotPath: string,
  quick: boolean,
): Promise<Record<string, number>> {
  const cold = await startPulsegate(
    await freePort(),
    build.url,
    ['--no-page-cache'],
    setup.cpus,
    build.cwd,
  );
  const { headers } = build;
  const latency: Record<string, number> = {};
  try {
    const n = quick ? 5 : 15;
    // What one request at a time costs with nothing to compute: the floor under every latency.
    const bareTimes: number[] = [];
    for (let i = 0; i < n * 4; i++) bareTimes.push(await timed(bareUrl, {}));
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
    const scopes = ['all', 'starred', 'followed'];
    const scopePage3 = scopes.map((): number[] => []);
    for (let i = 0; i < n; i++) {
      projectPage3.push(await timed(`${cold.url}${hotPath}?page=3`, headers));
      for (const [j, scope] of scopes.entries()) {
        scopePage3[j]!.push(
          await timed(`${cold.url}/api/v4/events?scope=${scope}&page=3`, headers),
        );
      }
    }
    latency['one project page 3, page cache off'] = median(projectPage3);
    for (const [j, scope] of scopes.entries()) {
      latency[`scope=${scope} page 3, page cache off`] = median(scopePage3[j]!);
    }
  } finally {
    await cold.stop();
  }
  return latency;
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

/**
 * The writer process (bench/live-writer.ts of the checkout at `cwd`, which appends as that build
 * does), on the load core: its rate is set per load.
 */
async function startWriter(url: string, cwd: string) {
  const child: ChildProcess = fork(resolve(cwd, 'bench/live-writer.ts'), [url], {
    cwd,
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
