/**
 * Follows over GitLab's REST API, on both dialects: follow and unfollow (201 with the user, 304
 * with no body when nothing changes, following oneself refused as GitLab refuses it), followers
 * and following (pages, 403 anonymous, 404 for a private profile), the counts in the user entity,
 * and GitLab's limit of 300 followed users with its 400 message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pagination } from '../helpers/http.js';
import { DIALECTS } from '../helpers/server.js';
import { type Actors, api, startWithUsers } from '../writes/helpers.js';

const LIMIT_MESSAGE =
  "You can't follow more than 300 users. To follow more users, unfollow some others.";

for (const dialect of DIALECTS) {
  describe(`follows (${dialect})`, () => {
    let a: Actors;
    let readOnly: string;
    const v4 = (method: string, path: string, user?: string) =>
      api(a.server, method, path, user === undefined ? undefined : a.tokens[user]);
    const usernames = (body: unknown) => (body as { username: string }[]).map((u) => u.username);

    before(async () => {
      a = await startWithUsers(dialect, ['alice', 'bob', 'carol', 'dave', 'erin', 'root']);
      const db = a.server.store.db;
      await db
        .updateTable('users')
        .set({ private_profile: 1 })
        .where('id', '=', a.ids.dave!)
        .execute();
      await db.updateTable('users').set({ admin: 1 }).where('id', '=', a.ids.root!).execute();
      readOnly = await a.fx.token(a.ids.bob!, ['read_user']);
    });
    after(() => a.server.close());

    it('POST /users/:id/follow: 201 with the user (UserBasic), then 304 with no body', async () => {
      const r = await v4('POST', `/users/${a.ids.bob}/follow`, 'alice');
      assert.equal(r.status, 201);
      assert.deepEqual(Object.keys(r.body as object), [
        'id',
        'username',
        'name',
        'state',
        'locked',
        'avatar_url',
        'web_url',
      ]);
      assert.equal((r.body as { username: string }).username, 'bob');
      const again = await v4('POST', `/users/${a.ids.bob}/follow`, 'alice');
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
    });

    it('following oneself changes nothing (304, as GitLab’s User#follow refuses it)', async () => {
      const r = await v4('POST', `/users/${a.ids.alice}/follow`, 'alice');
      assert.equal(r.status, 304);
      const following = await v4('GET', `/users/${a.ids.alice}/following`, 'alice');
      assert.deepEqual(usernames(following.body), ['bob']);
    });

    it('POST /users/:id/unfollow: 201 with the user, then 304 when not following', async () => {
      await v4('POST', `/users/${a.ids.carol}/follow`, 'alice');
      const r = await v4('POST', `/users/${a.ids.carol}/unfollow`, 'alice');
      assert.equal(r.status, 201);
      assert.equal((r.body as { username: string }).username, 'carol');
      const again = await v4('POST', `/users/${a.ids.carol}/unfollow`, 'alice');
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
    });

    it('unknown users are 404 User Not Found; a non-integer id is Grape’s 400', async () => {
      for (const verb of ['follow', 'unfollow']) {
        const r = await v4('POST', `/users/999999/${verb}`, 'alice');
        assert.deepEqual([r.status, r.body], [404, { message: '404 User Not Found' }]);
      }
      const list = await v4('GET', '/users/999999/followers', 'alice');
      assert.deepEqual([list.status, list.body], [404, { message: '404 User Not Found' }]);
      const bad = await v4('POST', '/users/bob/follow', 'alice');
      assert.deepEqual([bad.status, bad.body], [400, { error: 'id is invalid' }]);
    });

    it('writes need a token (401) with the api scope (403)', async () => {
      const anonymous = await v4('POST', `/users/${a.ids.carol}/follow`);
      assert.deepEqual([anonymous.status, anonymous.body], [401, { message: '401 Unauthorized' }]);
      const r = await api(a.server, 'POST', `/users/${a.ids.carol}/follow`, readOnly);
      assert.equal(r.status, 403);
      assert.equal((r.body as { error: string }).error, 'insufficient_scope');
    });

    it('followers and following: by user id, paged, 403 anonymous, 404 private profile', async () => {
      await v4('POST', `/users/${a.ids.bob}/follow`, 'erin');
      await v4('POST', `/users/${a.ids.bob}/follow`, 'carol');
      await v4('POST', `/users/${a.ids.bob}/follow`, 'dave');
      const followers = await v4('GET', `/users/${a.ids.bob}/followers`, 'carol');
      assert.equal(followers.status, 200);
      assert.deepEqual(usernames(followers.body), ['alice', 'carol', 'dave', 'erin']);
      assert.equal(pagination(followers.headers).total, '4');
      const page = await v4('GET', `/users/${a.ids.bob}/followers?per_page=2&page=2`, 'carol');
      assert.deepEqual(usernames(page.body), ['dave', 'erin']);
      assert.deepEqual(pagination(page.headers), {
        page: '2',
        perPage: '2',
        next: '',
        prev: '1',
        total: '4',
        totalPages: '2',
      });
      const following = await v4('GET', `/users/${a.ids.erin}/following`, 'bob');
      assert.deepEqual(usernames(following.body), ['bob']);

      const anonymous = await v4('GET', `/users/${a.ids.bob}/followers`);
      assert.deepEqual(
        [anonymous.status, anonymous.body],
        [403, { message: '403 Forbidden - Not authorized!' }],
      );
      // dave's profile is private: his lists are his and administrators' only.
      for (const list of ['followers', 'following']) {
        const hidden = await v4('GET', `/users/${a.ids.dave}/${list}`, 'bob');
        assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 User Not Found' }]);
      }
      const own = await v4('GET', `/users/${a.ids.dave}/following`, 'dave');
      assert.deepEqual(usernames(own.body), ['bob']);
      const admin = await v4('GET', `/users/${a.ids.dave}/following`, 'root');
      assert.deepEqual(usernames(admin.body), ['bob']);
    });

    it('the user entity counts followers and following; is_followed for signed-in callers', async () => {
      const r = await v4('GET', `/users/${a.ids.bob}`, 'carol');
      const body = r.body as Record<string, unknown>;
      assert.equal(body.followers, 4);
      assert.equal(body.following, 0);
      assert.equal(body.is_followed, true);
      const keys = Object.keys(body);
      assert.deepEqual(keys.slice(keys.indexOf('work_information')), [
        'work_information',
        'followers',
        'following',
        'is_followed',
        'local_time',
      ]);
      const anonymous = (await v4('GET', `/users/${a.ids.bob}`)).body as Record<string, unknown>;
      assert.equal(anonymous.followers, 4);
      assert.ok(!('is_followed' in anonymous));
      const notFollowing = await v4('GET', `/users/${a.ids.bob}`, 'bob');
      assert.equal((notFollowing.body as { is_followed: boolean }).is_followed, false);
      // A private profile shows no counts to others.
      const hidden = (await v4('GET', `/users/${a.ids.dave}`, 'bob')).body as object;
      assert.ok(!('followers' in hidden) && !('following' in hidden));
      const me = (await v4('GET', '/user', 'alice')).body as Record<string, unknown>;
      assert.deepEqual([me.followers, me.following, me.is_followed], [0, 1, false]);
    });

    it('the 301st follow is a 400 with GitLab’s message, and nothing is followed', async () => {
      const fx = a.fx;
      const many = await a.server.store.db
        .insertInto('users')
        .values(
          Array.from({ length: 300 }, (_, i) => ({
            username: `fan${i}`,
            name: `Fan ${i}`,
            email: `fan${i}@example.com`,
            state: 'active',
            admin: 0,
            two_factor_enabled: 0,
            private_profile: 0,
            created_at: 0,
          })),
        )
        .returning('id')
        .execute();
      const fan = await fx.user('superfan');
      const token = await fx.token(fan.id, ['api']);
      await a.server.store.db
        .insertInto('user_follows')
        .values(
          many
            .slice(0, 299)
            .map((u) => ({ follower_id: fan.id, followee_id: u.id, created_at: 0 })),
        )
        .execute();
      const last = await api(a.server, 'POST', `/users/${many[299]!.id}/follow`, token);
      assert.equal(last.status, 201);
      const over = await api(a.server, 'POST', `/users/${a.ids.bob}/follow`, token);
      assert.deepEqual([over.status, over.body], [400, { message: LIMIT_MESSAGE }]);
      const followers = await v4('GET', `/users/${a.ids.bob}/followers`, 'bob');
      assert.ok(!usernames(followers.body).includes('superfan'));
      // Unfollowing one makes room again.
      await api(a.server, 'POST', `/users/${many[0]!.id}/unfollow`, token);
      const room = await api(a.server, 'POST', `/users/${a.ids.bob}/follow`, token);
      assert.equal(room.status, 201);
    });

    it('follows sent at once never pass the limit together', async () => {
      const db = a.server.store.db;
      const racer = await a.fx.user('racer');
      const token = await a.fx.token(racer.id, ['api']);
      const fans = await db
        .selectFrom('users')
        .select('id')
        .where('username', 'like', 'fan%')
        .orderBy('id')
        .execute();
      await db
        .insertInto('user_follows')
        .values(
          fans
            .slice(0, 298)
            .map((u) => ({ follower_id: racer.id, followee_id: u.id, created_at: 0 })),
        )
        .execute();
      const targets = [a.ids.alice!, a.ids.bob!, a.ids.carol!, a.ids.erin!, a.ids.root!];
      const answers = await Promise.all(
        targets.map((id) => api(a.server, 'POST', `/users/${id}/follow`, token)),
      );
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 201, 400, 400, 400]);
      const count = await db
        .selectFrom('user_follows')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('follower_id', '=', racer.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 300);
    });

    it('a follow writes no event', async () => {
      const events = await v4('GET', '/events', 'alice');
      assert.deepEqual(events.body, []);
    });
  });
}
