/**
 * Row caches (tokens, users, projects, memberships) against writes from another connection, as
 * another process makes them, on both dialects. They keep their rows while other tables are
 * written (an event append above all: live instances append all the time) and drop them the
 * moment their own table changes (migration 015's counters: per table on SQLite, one for all of
 * them on PostgreSQL).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { digest } from '../../src/domain/secrets.js';
import { actionCode } from '../../src/domain/vocabulary.js';
import { type Store, openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestDatabase, createTestDatabase } from '../helpers/server.js';

/** The data version is read once per event-loop turn: let a turn pass, as between requests. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

for (const dialect of DIALECTS) {
  describe(`row caches and other connections' writes (${dialect})`, () => {
    let database: TestDatabase;
    let reader: Store;
    let writer: Store;
    let ids: { alice: number; bob: number; project: number };
    let token: string;

    before(async () => {
      database = await createTestDatabase(dialect);
      reader = await openStore(database.url);
      writer = await openStore(database.url);
      const f = new Fixtures(writer);
      const alice = await f.user('alice');
      const bob = await f.user('bob');
      const project = await f.project('acme/api', alice.id, 'internal');
      await f.member(project.id, alice.id, 40);
      token = await f.token(alice.id);
      ids = { alice: alice.id, bob: bob.id, project: project.id };
    });
    after(async () => {
      await reader.close();
      await writer.close();
      await database.drop();
    });

    /** Another connection appends an event: a change to none of the cached tables. */
    async function appendElsewhere() {
      await writer.transaction((tx) =>
        tx.events.append({
          project_id: ids.project,
          author_id: ids.alice,
          action: actionCode('created'),
          target_type: null,
          target_id: null,
          issue_id: null,
          created_at: Date.now(),
        }),
      );
      await nextTurn();
    }

    it('an event appended elsewhere leaves cached rows in place, and exact', async () => {
      // The project's first event moves its activity time (at most hourly): a projects change.
      await appendElsewhere();
      const user = await reader.users.byId(ids.alice);
      const project = await reader.projects.byId(ids.project);
      const tokenRow = await reader.tokens.byDigest(digest(token));
      const memberships = await reader.events.memberProjects(ids.alice);
      await appendElsewhere();
      const again = {
        user: await reader.users.byId(ids.alice),
        tokenRow: await reader.tokens.byDigest(digest(token)),
        memberships: await reader.events.memberProjects(ids.alice),
      };
      // The same objects: nothing was read again. A cache dropped on any commit returns copies.
      assert.ok(again.user === user);
      assert.ok(again.tokenRow === tokenRow);
      assert.ok(again.memberships === memberships);
      assert.deepEqual(again.user, user);
      assert.deepEqual(again.tokenRow, tokenRow);
      const projectAgain = await reader.projects.byId(ids.project);
      assert.ok(projectAgain === project);
      assert.deepEqual(projectAgain, project);
    });

    it('a user renamed elsewhere is seen on the next read', async () => {
      await reader.users.byId(ids.alice);
      await writer.db
        .updateTable('users')
        .set({ name: 'Alice Renamed' })
        .where('id', '=', ids.alice)
        .execute();
      await nextTurn();
      assert.equal((await reader.users.byId(ids.alice))?.name, 'Alice Renamed');
    });

    it('a token revoked elsewhere is seen on the next read', async () => {
      assert.equal((await reader.tokens.byDigest(digest(token)))?.revoked, 0);
      await writer.db
        .updateTable('personal_access_tokens')
        .set({ revoked: 1 })
        .where('token_digest', '=', digest(token))
        .execute();
      await nextTurn();
      assert.equal((await reader.tokens.byDigest(digest(token)))?.revoked, 1);
    });

    it('a membership added elsewhere is seen by access levels and member projects', async () => {
      assert.equal(await reader.projects.accessLevel(ids.project, ids.bob), null);
      assert.deepEqual(await reader.events.memberProjects(ids.bob), []);
      await new Fixtures(writer).member(ids.project, ids.bob, 30);
      await nextTurn();
      assert.equal(await reader.projects.accessLevel(ids.project, ids.bob), 30);
      assert.deepEqual(await reader.events.memberProjects(ids.bob), [
        { projectId: ids.project, visibility: 'internal', accessLevel: 30 },
      ]);
    });

    it("a project's visibility changed elsewhere is seen by projects and member projects", async () => {
      await reader.projects.byId(ids.project);
      await reader.events.memberProjects(ids.alice);
      await writer.db
        .updateTable('projects')
        .set({ visibility: 'private' })
        .where('id', '=', ids.project)
        .execute();
      await nextTurn();
      assert.equal((await reader.projects.byId(ids.project))?.visibility, 'private');
      assert.deepEqual(await reader.events.memberProjects(ids.alice), [
        { projectId: ids.project, visibility: 'private', accessLevel: 40 },
      ]);
    });
  });
}
