/**
 * Migration 024's tables on both dialects: what the schema itself guarantees, whoever writes
 * (a hand-typed statement here): nobody follows themselves, a star or follow exists once, rows go
 * with their user or project, and neither moves the listing version (every kept answer's): the
 * starred and followed listings carry their set in their own key and mark.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type Store, openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestDatabase, createTestDatabase } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`stars and follows tables (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    let ids: { alice: number; bob: number; project: number };

    before(async () => {
      database = await createTestDatabase(dialect);
      store = await openStore(database.url);
      const f = new Fixtures(store);
      const alice = await f.user('alice');
      const bob = await f.user('bob');
      const project = await f.project('acme/api', alice.id, 'public');
      ids = { alice: alice.id, bob: bob.id, project: project.id };
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    async function listingVersion(): Promise<number> {
      const row = await store.db
        .selectFrom('listing_version')
        .select('value')
        .executeTakeFirstOrThrow();
      return Number(row.value);
    }

    it('a star or a follow, added or removed, leaves the listing version as it was', async () => {
      const before = await listingVersion();
      await store.db
        .insertInto('project_stars')
        .values({ user_id: ids.alice, project_id: ids.project, created_at: 1 })
        .execute();
      await store.db
        .insertInto('user_follows')
        .values({ follower_id: ids.bob, followee_id: ids.alice, created_at: 1 })
        .execute();
      await store.db.deleteFrom('project_stars').where('user_id', '=', ids.alice).execute();
      await store.db.deleteFrom('user_follows').where('follower_id', '=', ids.bob).execute();
      assert.equal(await listingVersion(), before);
    });

    it('refuses following oneself and a second identical star or follow', async () => {
      await assert.rejects(
        store.db
          .insertInto('user_follows')
          .values({ follower_id: ids.alice, followee_id: ids.alice, created_at: 1 })
          .execute(),
        /check|constraint/i,
      );
      const star = { user_id: ids.bob, project_id: ids.project, created_at: 1 };
      await store.db.insertInto('project_stars').values(star).execute();
      await assert.rejects(
        store.db.insertInto('project_stars').values(star).execute(),
        /unique|duplicate/i,
      );
      const follow = { follower_id: ids.alice, followee_id: ids.bob, created_at: 1 };
      await store.db.insertInto('user_follows').values(follow).execute();
      await assert.rejects(
        store.db.insertInto('user_follows').values(follow).execute(),
        /unique|duplicate/i,
      );
    });

    it('refuses a star of a project or a follow of a user that does not exist', async () => {
      await assert.rejects(
        store.db
          .insertInto('project_stars')
          .values({ user_id: ids.alice, project_id: 999_999, created_at: 1 })
          .execute(),
        /foreign key/i,
      );
      await assert.rejects(
        store.db
          .insertInto('user_follows')
          .values({ follower_id: ids.alice, followee_id: 999_999, created_at: 1 })
          .execute(),
        /foreign key/i,
      );
    });

    it('adds and removes a star or a follow once, saying whether it changed anything', async () => {
      const carol = (await new Fixtures(store).user('carol')).id;
      const other = (await new Fixtures(store).project('acme/web', ids.alice, 'private')).id;
      assert.equal(await store.stars.add(carol, other, 5), true);
      assert.equal(await store.stars.add(carol, other, 6), false, 'a second star changes nothing');
      assert.equal(await store.stars.has(carol, other), true);
      assert.equal(await store.follows.add(carol, ids.bob, 8), true);
      assert.equal(await store.follows.add(carol, ids.bob, 9), false);
      assert.equal(await store.follows.isFollowing(carol, ids.bob), true);
      assert.equal(await store.stars.remove(carol, other), true);
      assert.equal(await store.stars.remove(carol, other), false);
      assert.equal(await store.stars.has(carol, other), false);
      assert.equal(await store.follows.remove(carol, ids.bob), true);
      assert.equal(await store.follows.remove(carol, ids.bob), false);
      assert.equal(await store.follows.isFollowing(carol, ids.bob), false);
    });

    it('answers starrers and followers through their own indexes', async () => {
      const indexes =
        dialect === 'sqlite'
          ? (
              await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index'
                AND tbl_name IN ('project_stars', 'user_follows')`.execute(store.db)
            ).rows.map((r) => r.name)
          : (
              await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes
                WHERE schemaname = current_schema()
                AND tablename IN ('project_stars', 'user_follows')`.execute(store.db)
            ).rows.map((r) => r.name);
      assert.ok(indexes.includes('project_stars_project_user'), indexes.join());
      assert.ok(indexes.includes('user_follows_followee_follower'), indexes.join());
    });
  });
}
