/**
 * OAuth benchmark (issue 3), in one interleaved run against one server:
 *  - the rate of `refresh_token` grants (each request presents a fresh, never-used refresh token,
 *    so every one is a real rotation: lookup, client check, conditional UPDATE, INSERT);
 *  - the cost an OAuth access token adds to a page-1 `/api/v4/projects/:id/events` request, next to
 *    a personal access token (PRIVATE-TOKEN and Bearer) and an anonymous request to the same
 *    public project (no token verification at all).
 *
 *   node --import tsx bench/oauth.ts [--events N] [--rounds R] [--seconds S] [--connections C]
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX } from '../src/domain/oauth.js';
import { digest, randomSecret } from '../src/domain/secrets.js';
import { actionCode } from '../src/domain/vocabulary.js';
import { openStore } from '../src/store/store.js';
import { PINNING, ensureBuilt, interleave, pinSelf, startPulsegate, table } from './lib/harness.js';
import { benchToken } from './lib/tokens.js';

if (!pinSelf()) {
  ensureBuilt();
  await main();
}

async function seed(databaseUrl: string, events: number, refreshTokens: number) {
  const store = await openStore(databaseUrl);
  const db = store.db;
  const now = Date.now();
  const owner = await store.users.create({
    username: 'owner',
    name: 'Owner',
    email: 'owner@example.com',
    passwordHash: null,
    createdAt: now,
  });
  const project = await db
    .insertInto('projects')
    .values({
      namespace: 'owner',
      path: 'app',
      full_path: 'owner/app',
      name: 'app',
      description: '',
      visibility: 'public',
      creator_id: owner.id,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  for (let done = 0; done < events; done += 500) {
    await db
      .insertInto('events')
      .values(
        Array.from({ length: Math.min(500, events - done) }, (_, i) => ({
          project_id: project.id,
          author_id: owner.id,
          action: actionCode('created'),
          target_type: null,
          target_id: null,
          issue_id: null,
          created_at: now - (events - done - i) * 60_000,
        })),
      )
      .execute();
  }
  const pat = await benchToken(store, owner.id);
  const secret = `pgos-${randomSecret(32)}`;
  const app = await db
    .insertInto('oauth_applications')
    .values({
      uid: randomSecret(24),
      secret_digest: digest(secret),
      name: 'bench',
      redirect_uris: 'https://bench.example/cb',
      scopes: 'api',
      confidential: 1,
      owner_id: owner.id,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const access = `${ACCESS_TOKEN_PREFIX}${randomSecret(32)}`;
  const refresh: string[] = [];
  const rows = [];
  for (let i = 0; i < refreshTokens + 1; i++) {
    const token = i === 0 ? access : `${ACCESS_TOKEN_PREFIX}${randomSecret(32)}`;
    const refreshToken = `${REFRESH_TOKEN_PREFIX}${randomSecret(32)}`;
    if (i > 0) refresh.push(refreshToken);
    rows.push({
      token_digest: digest(token),
      refresh_digest: digest(refreshToken),
      application_id: app.id,
      user_id: owner.id,
      scopes: 'api',
      created_at: now,
      expires_in: 7200,
      grant_id: null,
      family_id: randomSecret(16),
    });
  }
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('oauth_access_tokens')
      .values(rows.slice(i, i + 500))
      .execute();
  }
  await store.close();
  return { pat, access, refresh, projectId: project.id, clientId: app.uid, secret };
}

async function main() {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '5000' },
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '4' },
      connections: { type: 'string', default: '16' },
      'refresh-tokens': { type: 'string', default: '60000' },
    },
  });
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const dir = mkdtempSync(join(tmpdir(), 'pulsegate-oauthbench-'));
  const databaseUrl = `sqlite:${join(dir, 'bench.db')}`;
  const seeded = await seed(databaseUrl, Number(values.events), Number(values['refresh-tokens']));
  console.log(`seeded ${values.events} events, ${seeded.refresh.length} refresh tokens`);
  const port = 4000 + Math.floor(Math.random() * 500);
  const server = await startPulsegate(port, databaseUrl);
  try {
    const url = `${server.url}/api/v4/projects/${seeded.projectId}/events`;
    for (const headers of <Record<string, string>[]>[
      {},
      { 'private-token': seeded.pat },
      { authorization: `Bearer ${seeded.access}` },
    ]) {
      const res = await fetch(url, { headers });
      if (res.status !== 200)
        throw new Error(
          `events answered ${res.status} for ${JSON.stringify(Object.keys(headers))}`,
        );
    }
    const results = await interleave(
      [
        { name: 'anonymous (no token)', url },
        { name: 'PAT (PRIVATE-TOKEN)', url, headers: { 'private-token': seeded.pat } },
        { name: 'PAT (Bearer)', url, headers: { authorization: `Bearer ${seeded.pat}` } },
        {
          name: 'OAuth token (Bearer)',
          url,
          headers: { authorization: `Bearer ${seeded.access}` },
        },
      ],
      { rounds: Number(values.rounds), seconds, connections, warmup: 1 },
    );
    const anon = results.get('anonymous (no token)')!;
    const pat = results.get('PAT (PRIVATE-TOKEN)')!;
    const rows = [
      ['page-1 events', 'req/s', 'p50 ms', 'p99 ms', 'vs PAT', 'auth share of request'],
    ];
    for (const [name, s] of results) {
      // Time per request beyond the anonymous request = what verifying the credential costs.
      const share = name.startsWith('anonymous')
        ? '—'
        : `${(((1 / s.rps - 1 / anon.rps) / (1 / s.rps)) * 100).toFixed(1)} %`;
      rows.push([
        name,
        s.rps.toFixed(0),
        String(s.p50),
        String(s.p99),
        (s.rps / pat.rps).toFixed(3),
        share,
      ]);
      if (s.errors || s.non2xx)
        console.log(`warning: ${name}: ${s.errors} errors, ${s.non2xx} non-2xx`);
    }
    console.log(table(rows));

    // Refresh grants: every request takes a fresh refresh token from the pool.
    const pool = [...seeded.refresh];
    const basic = `Basic ${Buffer.from(`${seeded.clientId}:${seeded.secret}`).toString('base64')}`;
    const result = await autocannon({
      url: `${server.url}/oauth/token`,
      connections,
      duration: seconds * 2,
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      requests: [
        {
          setupRequest: (request: Record<string, unknown>) => ({
            ...request,
            body: `grant_type=refresh_token&refresh_token=${pool.pop() ?? 'exhausted'}`,
          }),
        },
      ],
    } as never);
    console.log(
      table([
        ['refresh_token grant', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx'],
        [
          'rotation (fresh token each)',
          result.requests.average.toFixed(0),
          String(result.latency.p50),
          String(result.latency.p99),
          String(result.non2xx),
        ],
      ]),
    );
    console.log(
      `refresh tokens used: ${seeded.refresh.length - pool.length}; pinned cores: ${PINNING}`,
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
