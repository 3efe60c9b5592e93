/**
 * Write benchmark (issue 9): writes per second through the REST API, on SQLite and PostgreSQL,
 * against a database that already holds activity (`pulsegate seed`, default 200,000 events):
 * `POST /projects/:id/issues` (an issue and its event), a note on an issue (note, event, the
 * issue touched), the same issue write with an `Idempotency-Key` (each request a new key: the
 * key's row is written too), and a push of 20 commits (`POST /projects/:id/pushes`: the event and
 * its payload). The baseline is a bare Fastify POST answering the issue's bytes, measured in the
 * same run; rounds are interleaved and medians reported.
 *
 *   npm run bench:writes -- [--events N] [--rounds R] [--seconds S] [--connections C]
 *                           [--postgres postgres://…|none]
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openStore } from '../src/store/store.js';
import {
  type Load,
  PINNING,
  type Sample,
  ensureBuilt,
  interleave,
  pinSelf,
  startBaseline,
  startPulsegate,
  table,
} from './lib/harness.js';
import { benchToken } from './lib/tokens.js';

if (!pinSelf()) {
  ensureBuilt();
  await main();
}

/** A push body of `count` commits (autocannon sends the same body each time). */
function pushBody(count: number): string {
  const sha = () => randomBytes(20).toString('hex');
  const commits = Array.from({ length: count }, (_, i) => ({
    id: sha(),
    message: `Commit ${i + 1}\n\nBody of the commit message.`,
    timestamp: '2026-11-22T10:00:00+00:00',
    author: { name: 'Bench', email: 'bench@example.com' },
  }));
  return JSON.stringify({
    changes: [
      {
        before: sha(),
        after: commits[commits.length - 1]!.id,
        ref: 'refs/heads/main',
        commits,
        total_commits_count: count,
      },
    ],
  });
}

async function freshPostgres(base: string): Promise<string> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  return `${base}${base.includes('?') ? '&' : '?'}schema=${schema}`;
}

async function dropPostgres(url: string): Promise<void> {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema')!;
  parsed.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: parsed.toString() });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

async function main() {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '200000' },
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
      postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-bench-writes-'));
  const targets: { name: string; url: string }[] = [
    { name: 'SQLite', url: `sqlite:${join(dir, 'writes.db')}` },
  ];
  if (values.postgres !== 'none') {
    targets.push({ name: 'PostgreSQL', url: await freshPostgres(values.postgres) });
  }
  const rows: string[][] = [
    ['database · route', 'writes/s', 'p50 ms', 'p99 ms', '× baseline', 'errors'],
  ];
  let port = 3900 + Math.floor(Math.random() * 100);
  for (const target of targets) {
    execFileSync(
      process.execPath,
      ['bin/pulsegate.js', 'seed', '--events', values.events, '--database-url', target.url],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const store = await openStore(target.url);
    const user = await store.db
      .selectFrom('users')
      .select('id')
      .orderBy('id')
      .limit(1)
      .executeTakeFirstOrThrow();
    // Writes and pushes with one token: `api` for the writes, `write_repository` for pushes.
    const token = await benchToken(store, user.id, ['api', 'write_repository']);
    await store.close();

    const server = await startPulsegate(port, target.url);
    const headers = { 'private-token': token, 'content-type': 'application/json' };
    const api = `${server.url}/api/v4`;
    const created = await fetch(`${api}/projects`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ path: `bench-${Date.now()}`, visibility: 'public' }),
    });
    const project = (await created.json()) as { id: number };
    const issue = await fetch(`${api}/projects/${project.id}/issues`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: 'A benchmark issue', description: 'Measured.' }),
    });
    const issueBytes = Buffer.from(await issue.arrayBuffer());
    if (issue.status !== 201) throw new Error(`issue answered ${issue.status}: ${issueBytes}`);
    const bodyFile = join(dir, 'issue.json');
    writeFileSync(bodyFile, issueBytes);
    const baseline = await startBaseline(port + 1, bodyFile);
    const push = await fetch(`${api}/projects/${project.id}/pushes`, {
      method: 'POST',
      headers,
      body: pushBody(20),
    });
    const pushes = push.status === 201;
    if (!pushes) console.log(`  (push endpoint answered ${push.status}: not measured)`);

    const loads: Load[] = [
      {
        name: 'baseline (bare Fastify POST)',
        url: `${baseline.url}/baseline`,
        method: 'POST',
        body: '{}',
        headers,
      },
      {
        name: 'POST issues',
        url: `${api}/projects/${project.id}/issues`,
        method: 'POST',
        headers,
        body: JSON.stringify({ title: 'Written under load', description: 'A few words.' }),
      },
      {
        name: 'POST issue note',
        url: `${api}/projects/${project.id}/issues/1/notes`,
        method: 'POST',
        headers,
        body: JSON.stringify({ body: 'A comment written under load.' }),
      },
    ];
    if (pushes) {
      loads.push({
        name: 'POST push (20 commits)',
        url: `${api}/projects/${project.id}/pushes`,
        method: 'POST',
        headers,
        body: pushBody(20),
      });
    }
    try {
      const results = await interleave(
        loads,
        {
          rounds: Number(values.rounds),
          seconds: Number(values.seconds),
          connections: Number(values.connections),
          warmup: 1,
        },
        (load, s) =>
          console.log(`  ${target.name} ${load.name}: ${Math.round(s.rps)}/s, p99 ${s.p99} ms`),
      );
      const base = results.get(loads[0]!.name)!;
      const row = (name: string, s: Sample) => [
        `${target.name} · ${name}`,
        Math.round(s.rps).toLocaleString('en'),
        String(s.p50),
        String(s.p99),
        (s.rps / base.rps).toFixed(3) + '×',
        String(s.errors + s.non2xx),
      ];
      for (const load of loads) rows.push(row(load.name, results.get(load.name)!));
      const count = await fetch(`${api}/projects/${project.id}/events?per_page=1`, { headers });
      console.log(
        `  ${target.name}: the project now has ${count.headers.get('x-total') ?? '> 10,000'} events`,
      );
    } finally {
      await server.stop();
      await baseline.stop();
      if (target.url.startsWith('postgres')) await dropPostgres(target.url);
    }
    port += 3;
  }
  console.log(
    `\nWrite benchmark — ${Number(values.events).toLocaleString('en')} seeded events, ` +
      `${values.connections} connections, ${values.rounds} interleaved rounds × ${values.seconds} s (medians)` +
      (PINNING ? ', server on CPU 0, load on CPU 1' : ', no CPU pinning') +
      '. A push is a fixed body: the same 20 commits each time (only its event and payload are written).\n',
  );
  console.log(table(rows));
}
