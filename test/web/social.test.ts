/**
 * The star button on a project's page and the follow button on a user's page: counts for
 * everyone, the button for signed-in users, POST forms that need the session's CSRF token, go
 * through the same write as the API (the API then sees the star or follow) and come back to the
 * page with a 303.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS } from '../helpers/server.js';
import { Browser, type OAuthWorld, PASSWORD, csrfOf, startOAuthServer } from '../oauth/support.js';

for (const dialect of DIALECTS) {
  describe(`star and follow buttons (${dialect})`, () => {
    let world: OAuthWorld;
    let browser: Browser;
    let projectId: number;

    before(async () => {
      world = await startOAuthServer({ dialect });
      const f = new Fixtures(world.server.store);
      projectId = (await f.project('alice/rocket', world.alice.id, 'public')).id;
      await f.project('alice/vault', world.alice.id, 'private');
      browser = new Browser(world.server.url);
      const signedIn = await browser.signIn('bob', PASSWORD);
      assert.equal(signedIn.status, 303);
    });
    after(() => world.close());

    const starCount = async () =>
      (
        (await (await fetch(`${world.server.url}/api/v4/projects/${projectId}`)).json()) as {
          star_count: number;
        }
      ).star_count;

    it('a project page shows its stars, and a signed-in user stars and unstars it', async () => {
      const anonymous = await new Browser(world.server.url).fetch('/alice/rocket');
      assert.equal(anonymous.status, 200);
      assert.match(anonymous.text, /<span class="social-count">0 stars<\/span>/);
      assert.doesNotMatch(anonymous.text, /action="\/-\/star"/);

      const page = await browser.fetch('/alice/rocket');
      assert.match(page.text, /<button type="submit" aria-pressed="false">\s*☆ Star\s*<\/button>/);
      const star = await browser.fetch('/-/star', {
        form: { authenticity_token: csrfOf(page.text), project: 'alice/rocket', action: 'star' },
      });
      assert.equal(star.status, 303);
      assert.equal(star.headers.get('location'), '/alice/rocket');
      assert.equal(await starCount(), 1);

      const starred = await browser.fetch('/alice/rocket');
      assert.match(starred.text, /★ Unstar/);
      assert.match(starred.text, /1 star<\/span>/);
      const unstar = await browser.fetch('/-/star', {
        form: {
          authenticity_token: csrfOf(starred.text),
          project: 'alice/rocket',
          action: 'unstar',
        },
      });
      assert.equal(unstar.status, 303);
      assert.equal(await starCount(), 0);
    });

    it('refuses a form without the CSRF token, and a project the user cannot see', async () => {
      const forged = await browser.fetch('/-/star', {
        form: { authenticity_token: 'forged', project: 'alice/rocket', action: 'star' },
      });
      assert.equal(forged.status, 403);
      assert.equal(await starCount(), 0);
      const page = await browser.fetch('/alice/rocket');
      const hidden = await browser.fetch('/-/star', {
        form: { authenticity_token: csrfOf(page.text), project: 'alice/vault', action: 'star' },
      });
      assert.equal(hidden.status, 404);
      const bad = await browser.fetch('/-/star', {
        form: { authenticity_token: csrfOf(page.text), project: 'alice/rocket', action: 'boost' },
      });
      assert.equal(bad.status, 400);
    });

    it('a user page shows follower counts, and a signed-in user follows and unfollows', async () => {
      const page = await browser.fetch('/alice');
      assert.match(page.text, /0 followers<\/span/);
      assert.match(page.text, />\s*Follow\s*<\/button>/);
      const follow = await browser.fetch('/-/follow', {
        form: {
          authenticity_token: csrfOf(page.text),
          user_id: String(world.alice.id),
          action: 'follow',
        },
      });
      assert.equal(follow.status, 303);
      assert.equal(follow.headers.get('location'), '/alice');
      const followers = await fetch(
        `${world.server.url}/api/v4/users/${world.alice.id}/followers`,
        {
          headers: {
            'PRIVATE-TOKEN': await new Fixtures(world.server.store).token(world.alice.id),
          },
        },
      );
      assert.deepEqual(
        ((await followers.json()) as { username: string }[]).map((u) => u.username),
        ['bob'],
      );
      const followed = await browser.fetch('/alice');
      assert.match(followed.text, /1 follower<\/span/);
      assert.match(followed.text, />\s*Unfollow\s*<\/button>/);
      const unfollow = await browser.fetch('/-/follow', {
        form: {
          authenticity_token: csrfOf(followed.text),
          user_id: String(world.alice.id),
          action: 'unfollow',
        },
      });
      assert.equal(unfollow.status, 303);
      assert.match((await browser.fetch('/alice')).text, /0 followers<\/span/);
      // One's own page shows the counts, no button.
      const own = await browser.fetch('/bob');
      assert.doesNotMatch(own.text, /action="\/-\/follow"/);
      assert.match(own.text, /0 following<\/span>/);
    });
  });
}
