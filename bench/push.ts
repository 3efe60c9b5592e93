/**
 * Push benchmark (issue 9): pushes per second through `POST /api/v4/projects/:id/pushes`, each a
 * 20-commit update of one branch (one `pushed` event and its payload per request), against a
 * `pulsegate serve` on a fresh database holding one developer and one project.
 *
 *   node --import tsx bench/push.ts [--seconds S] [--rounds R] [--connections C] [--db URL]
 *
 * `--db` takes an empty database (sqlite:path, or postgres://…?schema=name); by default a new
 * SQLite file. `pushLoad` and `preparePushBench` are exported for the combined write benchmark.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ACCESS_LEVELS } from '../src/domain/vocabulary.js';
import { openStore } from '../src/store/store.js';
import {
  type Load,
  ensureBuilt,
  interleave,
  pinSelf,
  rssMb,
  serverPid,
  startPulsegate,
  table,
} from './lib/harness.js';
import { benchToken } from './lib/tokens.js';

const PROJECT = 'bench/pushes';

/** A 20-commit push of `refs/heads/main` (fixed SHAs: every request records one more event). */
export function pushBody(): string {
  const sha = (n: number) => n.toString(16).padStart(40, '0');
  const commits = Array.from({ length: 20 }, (_, i) => ({
    id: sha(i + 2),
    message: `Commit ${i + 1} of the benchmark push\n\nWith a body line or two, as real commits have.\n`,
    timestamp: '2026-01-10T09:30:00+02:00',
    author: { name: 'Bench Developer', email: 'bench@example.com' },
  }));
  return JSON.stringify({
    changes: [
      {
        before: sha(1),
        after: sha(21),
        ref: 'refs/heads/main',
        commits,
        total_commits_count: 25,
      },
    ],
  });
}

/** The autocannon load: one 20-commit push per request. */
export function pushLoad(baseUrl: string, token: string, project = PROJECT): Load {
  return {
    name: 'POST /projects/:id/pushes (20 commits)',
    url: `${baseUrl}/api/v4/projects/${encodeURIComponent(project)}/pushes`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'private-token': token },
    body: pushBody(),
  };
}

/** A developer and their project in an empty, migrated database; returns their push token. */
export async function preparePushBench(databaseUrl: string): Promise<string> {
  const store = await openStore(databaseUrl);
  try {
    const now = Date.now();
    const user = await store.db
      .insertInto('users')
      .values({
        username: 'bench',
        name: 'Bench Developer',
        email: 'bench@example.com',
        state: 'active',
        password_hash: null,
        admin: 0,
        two_factor_enabled: 0,
        private_profile: 0,
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const project = await store.db
      .insertInto('projects')
      .values({
        namespace: 'bench',
        path: 'pushes',
        full_path: PROJECT,
        name: 'pushes',
        description: 'Push benchmark',
        visibility: 'private',
        creator_id: user.id,
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await store.db
      .insertInto('project_members')
      .values({ project_id: project.id, user_id: user.id, access_level: ACCESS_LEVELS.developer })
      .execute();
    // A push token, as the hook holds: only scope write_repository records pushes.
    return await benchToken(store, user.id, ['write_repository']);
  } finally {
    await store.close();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '8' },
      db: { type: 'string' },
      port: { type: 'string', default: '3311' },
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-push-bench-'));
  const databaseUrl = values.db ?? `sqlite:${join(dir, 'bench.db')}`;
  const token = await preparePushBench(databaseUrl);
  const server = await startPulsegate(Number(values.port), databaseUrl);
  try {
    const load = pushLoad(server.url, token);
    const check = await fetch(load.url, { method: 'POST', headers: load.headers, body: load.body });
    if (check.status !== 201)
      throw new Error(`push refused: ${check.status} ${await check.text()}`);
    const results = await interleave(
      [load],
      {
        rounds: Number(values.rounds),
        seconds: Number(values.seconds),
        connections: Number(values.connections),
        warmup: 1,
      },
      (l, s) => console.log(`  ${l.name}: ${s.rps.toFixed(0)} pushes/s, p99 ${s.p99} ms`),
    );
    const s = results.get(load.name)!;
    const dialect = databaseUrl.startsWith('postgres') ? 'PostgreSQL' : 'SQLite';
    console.log(
      table([
        ['route', 'pushes/s (median)', 'p50 ms', 'p99 ms', 'errors', 'non-2xx'],
        [
          `${load.name}, ${dialect}`,
          s.rps.toFixed(0),
          String(s.p50),
          String(s.p99),
          String(s.errors),
          String(s.non2xx),
        ],
      ]),
    );
    console.log(`server RSS: ${rssMb(serverPid(server))?.toFixed(0) ?? '?'} MB`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && !pinSelf()) {
  ensureBuilt();
  await main();
}
