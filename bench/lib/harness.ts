/**
 * Shared benchmark plumbing: child servers pinned to one core, autocannon on the other, interleaved
 * rounds, medians, RSS sampling, and a table of ratios against a baseline measured in the same run.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

export const SERVER_CPU = '0';
export const LOAD_CPU = '1';

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
export const PINNING = hasTaskset();

/** Builds dist/ so servers run as plain JavaScript, as `npm start` runs them (in `cwd`'s checkout). */
export function ensureBuilt(cwd?: string): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--quiet'], { stdio: 'inherit', cwd });
}

/** Re-runs the current script pinned to the load core, once. */
export function pinSelf(): boolean {
  if (!PINNING || process.env.PULSEGATE_BENCH_PINNED) return false;
  const child = spawn(
    'taskset',
    ['-c', LOAD_CPU, process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    { stdio: 'inherit', env: { ...process.env, PULSEGATE_BENCH_PINNED: '1' } },
  );
  child.on('exit', (code) => process.exit(code ?? 1));
  return true;
}

export interface Started {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * A port nothing listens on now, from the OS. Random ports collided with a previous setup's
 * server still shutting down, and a readiness check would then have measured the wrong process.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Starts `node <args>` (in `cwd`) on the server core and waits until `readyPath` answers. */
export async function startNode(
  args: string[],
  port: number,
  readyPath: string,
  env: Record<string, string> = {},
  cpus: string = SERVER_CPU,
  cwd?: string,
): Promise<Started> {
  const command = PINNING ? 'taskset' : process.execPath;
  const argv = PINNING ? ['-c', cpus, process.execPath, ...args] : args;
  const child = spawn(command, argv, {
    cwd,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production', ...env },
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`server exited with ${child.exitCode}: ${args.join(' ')}`);
    try {
      const res = await fetch(url + readyPath);
      await res.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`server did not start: ${args.join(' ')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Resident set size of a process in MB (Linux), or null. */
export function rssMb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** The pid of the node process behind a taskset wrapper (taskset execs, so it is the same). */
export function serverPid(started: Started): number | undefined {
  return started.child.pid;
}

export interface Load {
  name: string;
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** A mix: every request takes one of these paths (GET) or bodies (POST) at random. */
  paths?: readonly string[];
  bodies?: readonly string[];
  /** Runs before each measurement of this load (start a writer…), and after it. */
  before?: () => Promise<void> | void;
  after?: () => Promise<void> | void;
  /** The processes serving this load (and their descendants): a sample divides their CPU time by its requests. */
  servers?: () => number[];
}

export interface Sample {
  rps: number;
  p99: number;
  p50: number;
  errors: number;
  non2xx: number;
  /** CPU time the load's `servers` spent per request, in microseconds (with /proc only). */
  cpuMicros?: number;
}

let clockTicks: number | undefined;

/**
 * CPU seconds (user + system) used so far by each process tree: the process, every living
 * descendant, and the descendants that exited (a process's reaped children are in its own
 * counters), from /proc; null without /proc. Counting exited children matters for PostgreSQL,
 * whose backends come and go with the pool's connections.
 */
export function cpuSeconds(roots: readonly number[]): number | null {
  clockTicks ??= ticksPerSecond();
  let total = 0;
  for (const root of roots) {
    const own = treeTicks(root);
    if (own === null) return null;
    total += own;
  }
  return total / clockTicks;
}

function ticksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** utime + stime + cutime + cstime of a process and its living descendants; null if it is gone. */
function treeTicks(pid: number): number | null {
  const fields = statFields(pid);
  if (!fields) return null;
  // utime, stime, cutime, cstime: the 14th to 17th fields of the line.
  let ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  for (const child of childrenOf(pid)) ticks += treeTicks(child) ?? 0;
  return ticks;
}

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces): index 0 is the
 * line's 3rd field (state), 1 the parent's pid; null when the process is gone.
 */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** A process's living children (none without /proc). */
export function childrenOf(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return children ? children.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

/** PostgreSQL's postmaster on this machine (its backends serve the load too), if one runs. */
export function postmaster(): number[] {
  const comm = (pid: string) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return '';
    }
  };
  for (const entry of readdirSafe('/proc')) {
    if (!/^\d+$/.test(entry) || comm(entry) !== 'postgres') continue;
    const parent = statFields(entry)?.[1];
    if (parent !== undefined && comm(parent) !== 'postgres') return [Number(entry)];
  }
  return [];
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export async function measure(load: Load, seconds: number, connections: number): Promise<Sample> {
  const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!;
  const { paths, bodies } = load;
  await load.before?.();
  const servers = load.servers?.() ?? [];
  const cpuBefore = servers.length ? cpuSeconds(servers) : null;
  const result = await autocannon({
    ...(paths || bodies
      ? {
          requests: [
            {
              setupRequest: (request) => ({
                ...request,
                ...(paths ? { path: pick(paths) } : {}),
                ...(bodies ? { body: pick(bodies) } : {}),
              }),
            },
          ],
        }
      : {}),
    url: load.url,
    connections,
    duration: seconds,
    headers: load.headers ?? {},
    method: load.method ?? 'GET',
    ...(load.body ? { body: load.body } : {}),
  });
  const cpuAfter = cpuBefore === null ? null : cpuSeconds(servers);
  await load.after?.();
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    p50: result.latency.p50,
    errors: result.errors,
    non2xx: result.non2xx,
    ...(cpuBefore !== null && cpuAfter !== null && requests > 0
      ? { cpuMicros: ((cpuAfter - cpuBefore) * 1e6) / requests }
      : {}),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Runs every load once per round, in rotating order, and returns medians per load. Interleaving
 * spreads machine drift over all loads instead of penalising the last one.
 */
export async function interleave(
  loads: Load[],
  options: { rounds: number; seconds: number; connections: number; warmup: number },
  onSample?: (load: Load, sample: Sample) => void,
): Promise<Map<string, Sample>> {
  for (const load of loads) await measure(load, options.warmup, options.connections);
  const samples = new Map<string, Sample[]>(loads.map((l) => [l.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    const order = loads.map((_, i) => loads[(i + round) % loads.length]!);
    for (const load of order) {
      const sample = await measure(load, options.seconds, options.connections);
      samples.get(load.name)!.push(sample);
      onSample?.(load, sample);
    }
  }
  return new Map([...samples].map(([name, list]) => [name, summary(list)]));
}

/**
 * `interleave` with every sample of a load taken right after a sample of `baseline`, as long: each
 * load's ratio is the median, over rounds, of its rate over the baseline's rate measured next to
 * it. On a shared machine the speed drifts within minutes (the same bare route measured 14,000 to
 * 37,000 req/s within one minute here), and a ratio of two medians sampled minutes apart carries
 * that drift; a ratio of neighbours mostly does not. The baseline's own summary is over all its
 * samples.
 *
 * An entry of `loads` may be a group (one workload on two builds): its loads are measured one
 * right after the other, each after its own baseline sample, which one first alternating from
 * workload to workload and round to round, so drift and after-effects (writes the next server has
 * to catch up with) fall on each alike.
 */
export async function paired(
  baseline: Load,
  loads: (Load | Load[])[],
  options: { rounds: number; seconds: number; connections: number; warmup: number },
  onSample?: (load: Load, sample: Sample, ratio: number, base: Sample) => void,
): Promise<{
  samples: Map<string, Sample>;
  ratios: Map<string, number>;
  /** Per load: the median of the baseline's CPU per request over the load's, neighbour by neighbour. */
  costRatios: Map<string, number>;
}> {
  const groups = loads.map((entry) => (Array.isArray(entry) ? entry : [entry]));
  const all = groups.flat();
  for (const load of [baseline, ...all]) {
    await measure(load, options.warmup, options.connections);
  }
  const samples = new Map<string, Sample[]>([baseline, ...all].map((l) => [l.name, []]));
  const ratios = new Map<string, number[]>(all.map((l) => [l.name, []]));
  const costRatios = new Map<string, number[]>(all.map((l) => [l.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (let i = 0; i < groups.length; i++) {
      const g = (i + round) % groups.length;
      const group = groups[g]!;
      for (let j = 0; j < group.length; j++) {
        const load = group[(j + g + round) % group.length]!;
        const base = await measure(baseline, options.seconds, options.connections);
        const sample = await measure(load, options.seconds, options.connections);
        samples.get(baseline.name)!.push(base);
        samples.get(load.name)!.push(sample);
        ratios.get(load.name)!.push(sample.rps / base.rps);
        if (base.cpuMicros && sample.cpuMicros) {
          costRatios.get(load.name)!.push(base.cpuMicros / sample.cpuMicros);
        }
        onSample?.(load, sample, sample.rps / base.rps, base);
      }
    }
  }
  return {
    samples: new Map([...samples].map(([name, list]) => [name, summary(list)])),
    ratios: new Map([...ratios].map(([name, list]) => [name, median(list)])),
    costRatios: new Map(
      [...costRatios]
        .filter(([, list]) => list.length > 0)
        .map(([name, list]) => [name, median(list)]),
    ),
  };
}

/** Medians of a load's samples (errors summed). */
function summary(list: Sample[]): Sample {
  return {
    rps: median(list.map((s) => s.rps)),
    p99: median(list.map((s) => s.p99)),
    p50: median(list.map((s) => s.p50)),
    errors: list.reduce((a, s) => a + s.errors, 0),
    non2xx: list.reduce((a, s) => a + s.non2xx, 0),
    ...(list.every((s) => s.cpuMicros !== undefined)
      ? { cpuMicros: median(list.map((s) => s.cpuMicros!)) }
      : {}),
  };
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    `| ${r.map((v, c) => (c === 0 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join(' | ')} |`;
  const sep = `|${widths.map((w, c) => (c === 0 ? ':' : '-') + '-'.repeat(w) + (c === 0 ? '-' : ':')).join('|')}|`;
  return [line(rows[0]!), sep, ...rows.slice(1).map(line)].join('\n');
}

/**
 * `pulsegate serve` on the server core, quiet and unthrottled, as the benchmarks run it; from the
 * checkout at `cwd` (its own `dist/`) when given.
 */
export function startPulsegate(
  port: number,
  databaseUrl: string,
  extra: string[] = [],
  cpus: string = SERVER_CPU,
  cwd?: string,
) {
  return startNode(
    [
      'bin/pulsegate.js',
      'serve',
      '--port',
      String(port),
      '--database-url',
      databaseUrl,
      '--log-level',
      'silent',
      '--rate-limit',
      '0',
      // One process unless a benchmark asks for more (serve defaults to one per core).
      ...(extra.includes('--workers') ? [] : ['--workers', '1']),
      ...extra,
    ],
    port,
    '/-/health',
    {},
    cpus,
    cwd,
  );
}

/** The `serve` flags `startPulsegate` passes, for checking another checkout knows them. */
export const SERVE_FLAGS = ['--port', '--database-url', '--log-level', '--rate-limit', '--workers'];

/** The bare Fastify baseline serving `bodyFile`'s bytes at `/baseline`. */
export function startBaseline(port: number, bodyFile: string) {
  return startNode(
    ['--import', 'tsx', 'bench/baseline-server.ts', bodyFile, String(port)],
    port,
    '/baseline',
  );
}
