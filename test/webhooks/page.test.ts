/**
 * The project's webhook settings page: a maintainer sees each hook and its newest deliveries with
 * the receiver's answer, and can resend one; anyone else gets a 404 page; anonymous visitors are
 * sent to sign in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS } from '../helpers/server.js';
import { Browser, type OAuthWorld, PASSWORD, csrfOf, startOAuthServer } from '../oauth/support.js';
import { Receiver } from './receiver.js';
import { openIssue } from './record.js';
import { sealHookToken } from '../../src/domain/webhook-tokens.js';

for (const dialect of DIALECTS) {
  describe(`webhook settings page (${dialect})`, () => {
    let world: OAuthWorld;
    let receiver: Receiver;

    before(async () => {
      receiver = await new Receiver().listen();
      receiver.script = [503];
      world = await startOAuthServer({ dialect, config: { webhooksAllowLocal: true } });
    });
    after(async () => {
      await world.close();
      await receiver.close();
    });

    it('lists hooks and deliveries, resends one, and is only for maintainers', async () => {
      const { server } = world;
      const project = (await server.store.projects.byFullPath('alice/app'))!;
      const alice = (await server.store.users.byUsername('alice'))!;
      await new Fixtures(server.store).hook(project.id, `${receiver.url}/<hook>`, {
        token: sealHookToken('page-secret', null, `${receiver.url}/<hook>`),
        created_at: server.clock.now(),
      });
      await openIssue(
        server.store,
        server.services,
        server.clock.now(),
        project.id,
        alice.id,
        'Page issue',
      );
      await receiver.waitFor(1);
      // The failed attempt is recorded just after the answer.
      for (let i = 0; i < 100 && (await server.store.webhooks.outstanding()) > 0; i++) {
        const [row] = await server.store.db
          .selectFrom('webhook_deliveries')
          .select('response_status')
          .execute();
        if (row?.response_status === 503) break;
        await new Promise((r) => setTimeout(r, 20));
      }

      const anonymous = new Browser(server.url);
      const away = await anonymous.fetch('/alice/app/-/hooks');
      assert.equal(away.status, 303);
      assert.equal(away.headers.get('location'), '/users/sign_in');

      const bob = new Browser(server.url);
      assert.equal((await bob.signIn('bob', PASSWORD)).status, 303);
      const refused = await bob.fetch('/alice/app/-/hooks');
      assert.equal(refused.status, 404);

      const browser = new Browser(server.url);
      assert.equal((await browser.signIn('alice', PASSWORD)).status, 303);
      const page = await browser.fetch('/alice/app/-/hooks');
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(page.text, /Webhooks of alice\/app/);
      // The URL is escaped, the token is nowhere.
      assert.match(page.text, /\/&lt;hook&gt;/);
      assert.doesNotMatch(page.text, /page-secret/);
      assert.match(page.text, /issues_events/);
      assert.match(page.text, /Issue Hook/);
      assert.match(page.text, /<td data-label="Answer">\s*503/);
      assert.match(page.text, /failed with 503/);

      const action = /action="([^"]+\/retry)"/.exec(page.text)![1]!;
      assert.match(action, /^\/alice\/app\/-\/hooks\/\d+\/hook_logs\/\d+\/retry$/);
      const noToken = await browser.fetch(action, { form: {} });
      assert.equal(noToken.status, 403);
      const resent = await browser.fetch(action, {
        form: { authenticity_token: csrfOf(page.text) },
      });
      assert.equal(resent.status, 303);
      assert.equal(resent.headers.get('location'), '/alice/app/-/hooks?done=resent');
      // The original delivery is still waiting for its retry; the resend goes at once.
      await receiver.waitFor(2);
      assert.equal(
        receiver.received[1]!.headers['idempotency-key'],
        receiver.received[0]!.headers['idempotency-key'],
      );
      for (let i = 0; i < 100; i++) {
        const rows = await server.store.db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('status', '=', 'delivered')
          .execute();
        if (rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const after = await browser.fetch('/alice/app/-/hooks?done=resent');
      assert.match(after.text, /The delivery was queued again\./);
      assert.match(after.text, /<td data-label="Answer">\s*200/);
    });
  });
}
