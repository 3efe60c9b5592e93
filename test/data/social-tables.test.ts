/**
 * Migration 024's tables on both dialects: what the schema itself guarantees, whoever writes
 * (a hand-typed statement here): nobody follows themselves, a star or follow exists once, rows go
 * with their user or project, and every added or removed star or follow moves its user's social
 * version and the listing version (what the starred and followed listings' caches and ETags read).
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

    async function socialVersion(userId: number): Promise<number> {
      const row = await store.db
        .selectFrom('social_versions')
        .select('version')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(row?.version ?? 0);
    }
    async function listingVersion(): Promise<number> {
      const row = await store.db
        .selectFrom('listing_version')
        .select('value')
        .executeTakeFirstOrThrow();
      return Number(row.value);
    }

    it('a star moves its user’s social version and the listing version, on insert and delete', async () => {
      const [alice0, bob0, listing0] = [
        await socialVersion(ids.alice),
        await socialVersion(ids.bob),
        await listingVersion(),
      ];
      await store.db
        .insertInto('project_stars')
        .values({ user_id: ids.alice, project_id: ids.project, created_at: 1 })
        .execute();
      assert.equal(await socialVersion(ids.alice), alice0 + 1);
      assert.equal(await socialVersion(ids.bob), bob0);
      assert.ok((await listingVersion()) > listing0);
      await store.db.deleteFrom('project_stars').where('user_id', '=', ids.alice).execute();
      assert.equal(await socialVersion(ids.alice), alice0 + 2);
    });

    it('a follow moves the follower’s version, not the followee’s', async () => {
      const [alice0, bob0] = [await socialVersion(ids.alice), await socialVersion(ids.bob)];
      await store.db
        .insertInto('user_follows')
        .values({ follower_id: ids.bob, followee_id: ids.alice, created_at: 1 })
        .execute();
      assert.equal(await socialVersion(ids.bob), bob0 + 1);
      assert.equal(await socialVersion(ids.alice), alice0);
      await store.db.deleteFrom('user_follows').where('follower_id', '=', ids.bob).execute();
      assert.equal(await socialVersion(ids.bob), bob0 + 2);
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

    it('hands the feeds their sources and the version that says they changed', async () => {
      const carol = (await new Fixtures(store).user('carol')).id;
      const other = (await new Fixtures(store).project('acme/web', ids.alice, 'private')).id;
      const before = await store.socialVersions.of(carol);
      assert.equal(before, 0, 'no row yet: version 0');
      assert.equal(await store.stars.add(carol, other, 5), true);
      assert.equal(await store.stars.add(carol, other, 6), false, 'a second star changes nothing');
      assert.equal(await store.stars.add(carol, ids.project, 7), true);
      assert.deepEqual(await store.stars.projectIdsOf(carol), [ids.project, other].sort((x, y) => x - y));
      assert.equal(await store.follows.add(carol, ids.bob, 8), true);
      assert.equal(await store.follows.add(carol, ids.bob, 9), false);
      assert.equal(await store.follows.add(carol, ids.alice, 10), true);
      assert.deepEqual(await store.follows.followeeIdsOf(carol), [ids.alice, ids.bob].sort((x, y) => x - y));
      // Four changes (two stars, two follows); the refused repeats moved nothing.
      assert.equal(await store.socialVersions.of(carol), 4);
      assert.equal(await store.stars.remove(carol, other), true);
      assert.equal(await store.stars.remove(carol, other), false);
      assert.equal(await store.follows.remove(carol, ids.bob), true);
      assert.equal(await store.socialVersions.of(carol), 6);
      assert.deepEqual(await store.stars.projectIdsOf(carol), [ids.project]);
      assert.deepEqual(await store.follows.followeeIdsOf(carol), [ids.alice]);
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
