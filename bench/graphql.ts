/**
 * GraphQL events benchmark (issue 4). In one interleaved run: a bare Fastify baseline returning the
 * REST page-1 bytes, REST page 1, and the GraphQL query returning exactly the data of that REST page
 * (20 events with nested author, note and push data) on Mercurius (JIT) and on Apollo; plus a deep
 * GraphQL page (`after` a cursor 8,000 events in) against the first page on Mercurius. Every row is
 * measured twice: warm (page and result caches on, the default) and cold (a second server started
 * with `--no-page-cache`, so every request lists, hydrates and executes), in the same run.
 *
 *   node --import tsx bench/graphql.ts [--events N] [--rounds R] [--seconds S] [--connections C]
 */
import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { actionCode } from '../src/domain/vocabulary.js';
import { encodeCursor } from '../src/graphql/ids.js';
import { openStore } from '../src/store/store.js';
import {
  PINNING,
  type Sample,
  ensureBuilt,
  interleave,
  pinSelf,
  startPulsegate,
  startBaseline,
  table,
} from './lib/harness.js';
import { benchToken } from './lib/tokens.js';

/** One public project with `events` events by 50 authors: issues, notes, pushes, joins. */
async function seed(databaseUrl: string, events: number) {
  const store = await openStore(databaseUrl);
  const t0 = Date.UTC(2025, 0, 1);
  const db = store.db;
  const users = await db
    .insertInto('users')
    .values(
      Array.from({ length: 50 }, (_, i) => ({
        username: `dev${i}`,
        name: `Developer ${i}`,
        email: `dev${i}@example.com`,
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
  const owner = users[0]!.id;
  const project = await db
    .insertInto('projects')
    .values({
      namespace: 'bench',
      path: 'app',
      full_path: 'bench/app',
      name: 'app',
      description: 'Benchmark project',
      visibility: 'public',
      creator_id: owner,
      created_at: t0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('project_members')
    .values({ project_id: project.id, user_id: owner, access_level: 50 })
    .execute();
  const issues = await db
    .insertInto('issues')
    .values(
      Array.from({ length: 200 }, (_, i) => ({
        project_id: project.id,
        iid: i + 1,
        title: `Issue number ${i + 1}`,
        author_id: users[i % 50]!.id,
        confidential: 0,
        state: 'opened',
        created_at: t0,
      })),
    )
    .returning('id')
    .execute();
  const notes = await db
    .insertInto('notes')
    .values(
      Array.from({ length: 200 }, (_, i) => ({
        project_id: project.id,
        author_id: users[i % 50]!.id,
        body: `Comment ${i}`,
        noteable_type: 'Issue',
        noteable_id: issues[i]!.id,
        system: 0,
        attachment: null,
        created_at: t0,
        updated_at: t0,
      })),
    )
    .returning('id')
    .execute();
  const commits = JSON.stringify([
    {
      id: 'a'.repeat(40),
      message: 'Fix the thing',
      timestamp: '2025-01-01T00:00:00+00:00',
      url: 'http://example.test/c',
      author: { name: 'Dev', email: 'dev@example.com' },
    },
  ]);
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < events; start += 500) {
      const rows = Array.from({ length: Math.min(500, events - start) }, (_, k) => {
        const i = start + k;
        const kind = i % 4;
        const issue = issues[i % 200]!.id;
        return {
          project_id: project.id,
          author_id: users[i % 50]!.id,
          action: actionCode(
            kind === 0 ? 'created' : kind === 1 ? 'commented' : kind === 2 ? 'pushed' : 'joined',
          ),
          target_type: kind === 0 ? 'Issue' : kind === 1 ? 'Note' : null,
          target_id: kind === 0 ? issue : kind === 1 ? notes[i % 200]!.id : null,
          issue_id: kind === 0 || kind === 1 ? issue : null,
          created_at: t0 + i * 60_000,
        };
      });
      const inserted = await trx
        .insertInto('events')
        .values(rows)
        .returning(['id', 'action'])
        .execute();
      const pushes = inserted.filter((r) => r.action === actionCode('pushed'));
      if (pushes.length) {
        await trx
          .insertInto('push_event_payloads')
          .values(
            pushes.map((r) => ({
              event_id: r.id,
              action: 'pushed',
              ref_type: 'branch',
              ref: 'main',
              commit_from: 'b'.repeat(40),
              commit_to: 'a'.repeat(40),
              commit_count: 1,
              commit_title: 'Fix the thing',
              commits,
            })),
          )
          .execute();
      }
    }
  });
  const token = await benchToken(store, owner);
  await store.close();
  return { token, projectId: project.id };
}

/** Exactly the data of one REST events page entry, as GraphQL fields. */
const PAGE_FIELDS = `nodes { databaseId projectId actionName targetId targetIid targetType authorId targetTitle createdAt
  author { databaseId username name state avatarUrl webUrl }
  payload {
    ... on Note { databaseId body attachment author { databaseId username name state avatarUrl webUrl } createdAt updatedAt system noteableId noteableType projectId noteableIid }
    ... on PushData { before after ref refName commitCount action refType commitFrom commitTo commitTitle
      repository { name url description homepage } commits { id message timestamp url author { name email } } }
  } }`;

const pageQuery = (projectId: number, after?: string) =>
  JSON.stringify({
    query: `{ project(idOrPath: "${projectId}") { events(first: 20${after ? `, after: "${after}"` : ''}) { ${PAGE_FIELDS} } } }`,
  });

async function main() {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '20000' },
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
    },
  });
  const events = Number(values.events);
  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-gqlbench-'));
  const databaseUrl = `sqlite:${join(dir, 'bench.db')}`;
  const { token, projectId } = await seed(databaseUrl, events);
  console.log(`seeded ${events.toLocaleString('en')} events in project ${projectId}`);

  const port = 3900 + Math.floor(Math.random() * 100);
  const serve = (p: number, engine: string, cache = true) =>
    startPulsegate(p, databaseUrl, [
      '--graphql-engine',
      engine,
      ...(cache ? [] : ['--no-page-cache']),
    ]);
  const mercurius = await serve(port, 'mercurius');
  const apollo = await serve(port + 1, 'apollo');
  const mercuriusCold = await serve(port + 3, 'mercurius', false);
  const apolloCold = await serve(port + 4, 'apollo', false);
  const headers = { 'private-token': token };
  const json = { ...headers, 'content-type': 'application/json' };

  const restUrl = `${mercurius.url}/api/v4/projects/${projectId}/events`;
  const restPage = await fetch(restUrl, { headers });
  const body = Buffer.from(await restPage.arrayBuffer());
  const restEvents = JSON.parse(body.toString()) as Array<{ id: number }>;
  const bodyFile = join(dir, 'page1.json');
  writeFileSync(bodyFile, body);
  const baseline = await startBaseline(port + 2, bodyFile);

  // The cursor 8,000 events in: the last event of REST page 400 (20 per page).
  const deepRest = (await (await fetch(`${restUrl}?page=400`, { headers })).json()) as Array<{
    id: number;
  }>;
  const deepCursor = encodeCursor(deepRest.at(-1)!.id);

  // Sanity: the GraphQL page returns the REST page's events, in order.
  for (const server of [mercurius, apollo, mercuriusCold, apolloCold]) {
    const res = await fetch(`${server.url}/api/graphql`, {
      method: 'POST',
      headers: json,
      body: pageQuery(projectId),
    });
    const data = (await res.json()) as {
      data: { project: { events: { nodes: Array<{ databaseId: number }> } } };
    };
    const ids = data.data.project.events.nodes.map((n) => n.databaseId);
    if (JSON.stringify(ids) !== JSON.stringify(restEvents.map((e) => e.id)))
      throw new Error(`GraphQL page differs from REST: ${ids}`);
  }

  const gqlLoad = (name: string, url: string, after?: string) => ({
    name,
    url: `${url}/api/graphql`,
    method: 'POST' as const,
    headers: json,
    body: pageQuery(projectId, after),
  });
  const coldRest = `${mercuriusCold.url}/api/v4/projects/${projectId}/events`;
  const loads = [
    { name: 'baseline (bare Fastify, REST bytes)', url: `${baseline.url}/baseline` },
    { name: 'REST GET /projects/:id/events', url: restUrl, headers },
    gqlLoad('GraphQL Mercurius (JIT) page 1', mercurius.url),
    gqlLoad('GraphQL Apollo 5 page 1', apollo.url),
    gqlLoad('GraphQL Mercurius, after 8,000', mercurius.url, deepCursor),
    { name: 'REST, no page cache', url: coldRest, headers },
    gqlLoad('GraphQL Mercurius, no page cache', mercuriusCold.url),
    gqlLoad('GraphQL Apollo 5, no page cache', apolloCold.url),
    gqlLoad('GraphQL Mercurius after 8,000, no cache', mercuriusCold.url, deepCursor),
  ];
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
  await Promise.all([
    mercurius.stop(),
    apollo.stop(),
    mercuriusCold.stop(),
    apolloCold.stop(),
    baseline.stop(),
  ]);

  const get = (i: number) => results.get(loads[i]!.name)!;
  const [base, rest, merc, apol, deep, restCold, mercCold, apolCold, deepCold] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8,
  ].map(get) as Sample[] as [
    Sample,
    Sample,
    Sample,
    Sample,
    Sample,
    Sample,
    Sample,
    Sample,
    Sample,
  ];
  // Cold rows compare with cold REST: both then do the same listing work per request.
  const versus = (name: string) => (name.includes('no ') ? restCold : rest);
  console.log(
    `\nGraphQL events benchmark — ${events.toLocaleString('en')} events, SQLite, ${values.connections} connections, ` +
      `${values.rounds} interleaved rounds × ${values.seconds} s (medians)` +
      (PINNING ? ', servers on CPU 0, load on CPU 1' : ', no CPU pinning') +
      `\n`,
  );
  console.log(
    table([
      ['route', 'req/s', 'p50 ms', 'p99 ms', '× baseline', '× REST (same cache)', 'errors'],
      ...loads.map((l) => {
        const s = results.get(l.name)!;
        return [
          l.name,
          Math.round(s.rps).toLocaleString('en'),
          String(s.p50),
          String(s.p99),
          (s.rps / base.rps).toFixed(2) + '×',
          (s.rps / versus(l.name).rps).toFixed(2) + '×',
          String(s.errors + s.non2xx),
        ];
      }),
    ]),
  );
  const ratio = (a: Sample, b: Sample) => (a.rps / b.rps).toFixed(2) + '×';
  console.log(`\nwarm (caches on): Mercurius ÷ REST ${ratio(merc, rest)} (goal ≥ 0.7×)`);
  console.log(`cold (--no-page-cache): Mercurius ÷ REST ${ratio(mercCold, restCold)}`);
  console.log(`Apollo ÷ REST: warm ${ratio(apol, rest)}, cold ${ratio(apolCold, restCold)}`);
  console.log(
    `deep page mean latency ÷ first page: warm ${ratio(merc, deep)}, ` +
      `cold ${ratio(mercCold, deepCold)} (goal ≤ 1.2×)`,
  );

  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    join('bench/results', `graphql-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    JSON.stringify({ events, results: Object.fromEntries(results) }, null, 2),
  );
  rmSync(dir, { recursive: true, force: true });
}

// Last, so every constant above is initialized before main() runs.
if (!pinSelf()) {
  ensureBuilt();
  await main();
}
