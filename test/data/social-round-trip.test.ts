/**
 * Stars and follows survive export and import, across dialects: the file carries them as `star`
 * and `follow` records, the copy exports to the same file, and the API answers starrers,
 * followers, following and star counts the same on both sides.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ImportService } from '../../src/data/import.js';
import { exportText } from '../helpers/export-text.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type TestDialect, type TestServer, startServer } from '../helpers/server.js';

const EXTERNAL_URL = 'http://pulsegate.test';

const PAIRS: [TestDialect, TestDialect][] = process.env.PULSEGATE_TEST_POSTGRES_URL
  ? [
      ['sqlite', 'postgres'],
      ['postgres', 'sqlite'],
    ]
  : [['sqlite', 'sqlite']];

const T = Date.UTC(2026, 0, 5, 12, 0, 0);

for (const [from, to] of PAIRS) {
  describe(`stars and follows: export ${from} → import ${to}`, () => {
    let source: TestServer;
    let copy: TestServer;
    let file = '';
    let token = '';

    before(async () => {
      source = await startServer({
        dialect: from,
        config: { externalUrl: EXTERNAL_URL },
        seed: async (store) => {
          const f = new Fixtures(store);
          const [alice, bob, carol] = [await f.user('alice'), await f.user('bob'), await f.user('carol')];
          const api = await f.project('acme/api', alice.id, 'public');
          const web = await f.project('acme/web', bob.id, 'private');
          await f.member(web.id, bob.id, 50);
          await f.member(web.id, alice.id, 30);
          await store.db
            .insertInto('project_stars')
            .values([
              { user_id: bob.id, project_id: api.id, created_at: T },
              { user_id: carol.id, project_id: api.id, created_at: T + 1000 },
              { user_id: alice.id, project_id: web.id, created_at: T + 2000 },
            ])
            .execute();
          await store.db
            .insertInto('user_follows')
            .values([
              { follower_id: alice.id, followee_id: bob.id, created_at: T + 3000 },
              { follower_id: carol.id, followee_id: bob.id, created_at: T + 4000 },
              { follower_id: bob.id, followee_id: alice.id, created_at: T + 5000 },
            ])
            .execute();
          token = await f.token(alice.id, ['read_api']);
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

    it('writes star and follow records, and the copy exports to the very same file', async () => {
      const lines = file.trim().split('\n').map((l) => JSON.parse(l) as { kind: string });
      const social = lines.filter((l) => l.kind === 'star' || l.kind === 'follow');
      assert.deepEqual(social, [
        { kind: 'star', user_id: 1, project_id: 2, created_at: '2026-01-05T12:00:02.000Z' },
        { kind: 'star', user_id: 2, project_id: 1, created_at: '2026-01-05T12:00:00.000Z' },
        { kind: 'star', user_id: 3, project_id: 1, created_at: '2026-01-05T12:00:01.000Z' },
        { kind: 'follow', follower_id: 1, followee_id: 2, created_at: '2026-01-05T12:00:03.000Z' },
        { kind: 'follow', follower_id: 2, followee_id: 1, created_at: '2026-01-05T12:00:05.000Z' },
        { kind: 'follow', follower_id: 3, followee_id: 2, created_at: '2026-01-05T12:00:04.000Z' },
      ]);
      assert.equal(await exportText(copy.store), file);
    });

    it('answers starrers, star counts, followers and following the same on both sides', async () => {
      const paths = [
        '/api/v4/projects/1/starrers',
        '/api/v4/projects/1',
        '/api/v4/projects?order_by=star_count',
        '/api/v4/users/1/starred_projects',
        '/api/v4/users/2/followers',
        '/api/v4/users/1/following',
        '/api/v4/users/2',
      ];
      for (const path of paths) {
        const [a, b] = await Promise.all(
          [source, copy].map(async (server) => {
            const res = await fetch(`${server.url}${path}`, { headers: { 'PRIVATE-TOKEN': token } });
            return { status: res.status, total: res.headers.get('x-total'), body: await res.text() };
          }),
        );
        assert.equal(a!.status, 200, path);
        assert.deepEqual(b, a, path);
      }
      const starrers = await fetch(`${copy.url}/api/v4/projects/1/starrers`, {
        headers: { 'PRIVATE-TOKEN': token },
      });
      const body = (await starrers.json()) as { starred_since: string; user: { username: string } }[];
      assert.deepEqual(
        body.map((s) => [s.user.username, s.starred_since]),
        [
          ['bob', '2026-01-05T12:00:00.000Z'],
          ['carol', '2026-01-05T12:00:01.000Z'],
        ],
      );
    });
  });
}
