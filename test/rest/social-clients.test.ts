/**
 * Real GitLab clients, unchanged, star, unstar, follow and unfollow through pulsegate and list
 * starrers, starred projects, followers and following: @gitbeaker/rest and python-gitlab
 * (Debian's python3-gitlab), on both dialects. GitLab's 304 for a star or follow that changes
 * nothing reaches each client as it would from GitLab.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { Fixtures } from '../helpers/fixtures.js';
import { runPythonGitlab } from '../helpers/python-gitlab.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const SCRIPT = fileURLToPath(new URL('./clients/python_gitlab_social.py', import.meta.url));

/** The HTTP status a gitbeaker call failed with. */
async function failedWith(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
  } catch (error) {
    return (error as { cause?: { response?: { status?: number } } }).cause?.response?.status;
  }
  assert.fail('expected the call to fail');
}

for (const dialect of DIALECTS) {
  describe(`GitLab clients star and follow (${dialect})`, () => {
    let server: TestServer;
    const tokens: Record<string, string> = {};
    const ids: Record<string, number> = {};

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const f = new Fixtures(store);
          for (const name of ['alice', 'bob', 'carol']) {
            const user = await f.user(name);
            ids[name] = user.id;
            tokens[name] = await f.token(user.id, ['api']);
          }
          ids.project = (await f.project('acme/rocket', ids.alice!, 'public')).id;
          ids.other = (await f.project('acme/probe', ids.alice!, 'public')).id;
          await store.db
            .insertInto('project_stars')
            .values({ user_id: ids.carol!, project_id: ids.project, created_at: 1 })
            .execute();
        },
      });
    });
    after(() => server.close());

    it('@gitbeaker/rest', async () => {
      const api = new Gitlab({ host: server.url, token: tokens.bob! });

      const starred = await api.Projects.star(ids.project!);
      assert.equal(starred.id, ids.project);
      assert.equal(starred.star_count, 2);
      assert.equal(await failedWith(api.Projects.star(ids.project!)), 304);
      const starrers = await api.Projects.allStarrers(ids.project!);
      assert.deepEqual(
        starrers.map((s) => (s as unknown as { user: { username: string } }).user.username),
        ['carol', 'bob'],
      );
      const mine = await api.Users.allStarredProjects(ids.bob!);
      assert.deepEqual(
        mine.map((p) => p.path_with_namespace),
        ['acme/rocket'],
      );
      const unstarred = await api.Projects.unstar(ids.project!);
      assert.equal(unstarred.star_count, 1);
      assert.equal(await failedWith(api.Projects.unstar(ids.project!)), 304);

      const followed = await api.Users.follow(ids.alice!);
      assert.equal(followed.username, 'alice');
      assert.equal(await failedWith(api.Users.follow(ids.alice!)), 304);
      const followers = await api.Users.allFollowers(ids.alice!);
      assert.deepEqual(
        followers.map((u) => u.username),
        ['bob'],
      );
      const following = await api.Users.allFollowing(ids.bob!);
      assert.deepEqual(
        following.map((u) => u.username),
        ['alice'],
      );
      const shown = (await api.Users.show(ids.alice!)) as unknown as Record<string, unknown>;
      assert.deepEqual([shown.followers, shown.following, shown.is_followed], [1, 0, true]);
      const unfollowed = await api.Users.unfollow(ids.alice!);
      assert.equal(unfollowed.username, 'alice');
      assert.deepEqual(await api.Users.allFollowers(ids.alice!), []);
    });

    it('python-gitlab', async (t) => {
      const out = await runPythonGitlab(t, SCRIPT, [
        server.url,
        tokens.carol!,
        String(ids.other),
        String(ids.bob),
      ]);
      if (out === null) return;
      assert.deepEqual(JSON.parse(out), {
        star_count: [1, 0],
        star_again: 304,
        unstar_again: 304,
        starrers: [['carol', true]],
        starred: ['acme/probe', 'acme/rocket'],
        followed: 'bob',
        follow_again: 304,
        followers: ['carol'],
        following: ['bob'],
        counts: [1, 0, true],
        unfollowed: 'bob',
        followers_after: [],
      });
    });
  });
}
