/**
 * Moving between dialects: export a database, import the file into an empty database of the other
 * dialect, and the API answers byte for byte the same (bodies and pagination headers), and the
 * export of the copy is the same file. Without PostgreSQL the trip is SQLite → SQLite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { digest } from '../../src/domain/secrets.js';
import { DEMO_PASSWORD } from '../../src/data/demo-catalog.js';
import { ImportService } from '../../src/data/import.js';
import { SeedService } from '../../src/data/seed.js';
import { exportText } from '../helpers/export-text.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type TestDialect, type TestServer, startServer } from '../helpers/server.js';

const EXTERNAL_URL = 'http://pulsegate.test';
const HEADERS = ['content-type', 'x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'x-total', 'x-total-pages', 'link'];

/** Requests as [path, token owner or null for anonymous]. */
const REQUESTS: [string, string | null][] = [
  ['/api/v4/events', 'alice'],
  ['/api/v4/events?scope=all&per_page=50&page=3', 'alice'],
  ['/api/v4/events?action=pushed&sort=asc&per_page=7&page=2', 'alice'],
  ['/api/v4/projects/1/events', null],
  ['/api/v4/projects/1/events?per_page=100&page=4', 'alice'],
  ['/api/v4/projects/acme%2Fplatform%2Fapi/events?target_type=note&after=2025-11-01&before=2025-12-01', 'alice'],
  ['/api/v4/projects/3/events?action=pushed&per_page=5', 'bob'],
  ['/api/v4/projects/3/events', 'alice'],
  ['/api/v4/projects/2/events?target_type=merge_request&sort=asc&page=2&per_page=10', 'dave'],
  ['/api/v4/projects/acme%2Fplatform%2Fapi/events?target_type=issue&per_page=100', 'erin'],
  ['/api/v4/users/bob/events?target_type=issue&page=2', 'alice'],
  ['/api/v4/users/carol/events', 'alice'],
  ['/api/v4/users/carol/events?per_page=3', 'root'],
  ['/api/v4/users/2/events?action=commented&per_page=20&page=5', null],
  ['/api/v4/users/dave/events?after=2025-12-24&sort=asc', 'bob'],
];

interface Snapshot {
  status: number;
  headers: Record<string, string | null>;
  body: string;
}

async function snapshot(server: TestServer, tokens: Map<string, string>): Promise<Snapshot[]> {
  const out: Snapshot[] = [];
  for (const [path, who] of REQUESTS) {
    const headers: Record<string, string> = who ? { 'PRIVATE-TOKEN': tokens.get(who)! } : {};
    const res = await fetch(`${server.url}${path}`, { headers });
    out.push({
      status: res.status,
      headers: Object.fromEntries(HEADERS.map((h) => [h, res.headers.get(h)])),
      body: await res.text(),
    });
  }
  return out;
}

const PAIRS: [TestDialect, TestDialect][] = process.env.PULSEGATE_TEST_POSTGRES_URL
  ? [
      ['sqlite', 'postgres'],
      ['postgres', 'sqlite'],
    ]
  : [['sqlite', 'sqlite']];

for (const [from, to] of PAIRS) {
  describe(`export ${from} → import ${to}`, () => {
    let source: TestServer;
    let copy: TestServer;
    let file = '';
    const tokens = new Map<string, string>();

    before(async () => {
      source = await startServer({
        dialect: from,
        config: { externalUrl: EXTERNAL_URL },
        seed: async (store) => {
          await new SeedService(store, { now: () => 0 }).seedDemo();
          const f = new Fixtures(store);
          for (const name of ['alice', 'bob', 'dave', 'erin', 'root']) {
            const user = await store.users.byUsername(name);
            // erin is blocked: her token must still round-trip (and answer 403 on both sides).
            tokens.set(name, await f.token(user!.id, ['read_api']));
          }
          // Calendar settings (issue 34) travel with their user.
          await store.db
            .updateTable('users')
            .set({ timezone: 'Pacific/Auckland', include_private_contributions: 1 })
            .where('username', '=', 'bob')
            .execute();
          // A registered OAuth client must keep its App ID and secret across the move.
          const alice = await store.users.byUsername('alice');
          await store.db
            .insertInto('oauth_applications')
            .values({
              uid: 'round-trip-app',
              secret_digest: digest('round-trip-secret'),
              name: 'Round trip',
              redirect_uris: 'https://app.example/cb\nhttp://127.0.0.1/cb',
              scopes: 'api read_user openid',
              confidential: 1,
              owner_id: alice!.id,
              created_at: 0,
              // Registered for ES256 ID tokens: the choice must survive the move.
              id_token_signed_response_alg: 'ES256',
            })
            .execute();
        },
      });
      file = await exportText(source.store);
      copy = await startServer({
        dialect: to,
        config: { externalUrl: EXTERNAL_URL },
        seed: async (store) => {
          await new ImportService(store, { now: () => 0 }).importText(file);
        },
      });
    });
    after(async () => {
      await source?.close();
      await copy?.close();
    });

    it('exports the copy to the very same file', async () => {
      assert.ok(file.length > 100_000);
      assert.match(file, /"uid":"round-trip-app".*"id_token_signed_response_alg":"ES256"/);
      assert.equal(await exportText(copy.store), file);
    });

    it('answers every listing byte for byte the same, headers included', async () => {
      const [a, b] = [await snapshot(source, tokens), await snapshot(copy, tokens)];
      assert.ok(a.filter((s) => s.status === 200 && s.body.length > 2).length >= 10);
      for (let i = 0; i < REQUESTS.length; i++) {
        assert.deepEqual(b[i], a[i], REQUESTS[i]![0]);
      }
    });

    it("keeps each user's calendar time zone and private-contributions choice", async () => {
      const settings = (server: TestServer) =>
        server.store.db
          .selectFrom('users')
          .select(['username', 'timezone', 'include_private_contributions'])
          .orderBy('username')
          .execute();
      const copied = await settings(copy);
      assert.deepEqual(copied, await settings(source));
      assert.deepEqual(
        copied.find((u) => u.username === 'bob'),
        { username: 'bob', timezone: 'Pacific/Auckland', include_private_contributions: 1 },
      );
    });

    it('keeps registered OAuth applications: the same client credentials still work', async () => {
      const res = await fetch(`${copy.url}/oauth/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('round-trip-app:round-trip-secret').toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'password', username: 'bob', password: DEMO_PASSWORD }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      const body = (await res.json()) as { scope: string };
      assert.equal(body.scope, 'api read_user openid');
    });

    it('keeps ids and moves sequences past them, so new rows do not collide', async () => {
      const user = await copy.store.users.create({ username: 'newbie', name: 'New', email: 'new@example.com', passwordHash: null, createdAt: 0 });
      const max = await copy.store.db.selectFrom('users').select((eb) => eb.fn.max('id').as('m')).executeTakeFirstOrThrow();
      assert.equal(user.id, Number(max.m));
      assert.ok(user.id > 7);
    });
  });
}
