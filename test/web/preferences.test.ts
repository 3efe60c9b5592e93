/**
 * `/profile/preferences` on both dialects: the signed-in user's calendar settings as a form
 * (current values selected), saved by a CSRF-protected POST and read back by the API and the
 * calendar; an unknown zone is a 400 page that changes nothing; a POST without the form token is
 * refused; signed out, the page sends to sign-in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Browser,
  type OAuthWorld,
  csrfOf,
  signedInBrowser,
  startOAuthServer,
} from '../oauth/support.js';
import { DIALECTS } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`the preferences page (${dialect})`, () => {
    let world: OAuthWorld;
    let browser: Browser;
    before(async () => {
      world = await startOAuthServer({ dialect });
      browser = await signedInBrowser(world);
    });
    after(() => world.close());

    const settings = async () => world.server.services.calendarSettings.get(world.alice.id);

    it('shows the current settings and saves new ones', async () => {
      const page = await browser.fetch('/profile/preferences');
      assert.equal(page.status, 200);
      assert.match(page.text, /<option value="UTC" selected>/);
      assert.match(page.text, /<option value="Pacific\/Auckland" >/);
      assert.doesNotMatch(page.text, /value="1"\s+checked/);
      const saved = await browser.fetch('/profile/preferences', {
        form: new URLSearchParams([
          ['authenticity_token', csrfOf(page.text)],
          ['timezone', 'Pacific/Auckland'],
          ['include_private_contributions', '0'],
          ['include_private_contributions', '1'],
        ]),
      });
      assert.equal(saved.status, 303);
      assert.equal(saved.headers.get('location'), '/profile/preferences?done=saved');
      assert.deepEqual(await settings(), {
        userId: world.alice.id,
        timeZone: 'Pacific/Auckland',
        includePrivateContributions: true,
      });
      const again = await browser.fetch('/profile/preferences?done=saved');
      assert.match(again.text, /Preferences saved\./);
      assert.match(again.text, /<option value="Pacific\/Auckland" selected>/);
      assert.match(again.text, /value="1"\s+checked/);
      // Unchecked, only the hidden 0 is sent.
      const off = await browser.fetch('/profile/preferences', {
        form: {
          authenticity_token: csrfOf(again.text),
          timezone: 'UTC',
          include_private_contributions: '0',
        },
      });
      assert.equal(off.status, 303);
      assert.deepEqual(await settings(), {
        userId: world.alice.id,
        timeZone: 'UTC',
        includePrivateContributions: false,
      });
    });

    it('refuses an unknown zone with a 400 page, and a POST without the form token', async () => {
      const page = await browser.fetch('/profile/preferences');
      const bad = await browser.fetch('/profile/preferences', {
        form: { authenticity_token: csrfOf(page.text), timezone: 'Atlantis/Capital' },
      });
      assert.equal(bad.status, 400);
      assert.match(bad.text, /timezone is not a valid time zone/);
      const forged = await browser.fetch('/profile/preferences', {
        form: { timezone: 'Pacific/Auckland', include_private_contributions: '1' },
      });
      assert.notEqual(forged.status, 303);
      assert.ok(forged.status >= 400 && forged.status < 500, String(forged.status));
      assert.deepEqual(await settings(), {
        userId: world.alice.id,
        timeZone: 'UTC',
        includePrivateContributions: false,
      });
    });

    it('sends a signed-out visitor to sign in', async () => {
      const res = await new Browser(world.server.url).fetch('/profile/preferences');
      assert.equal(res.status, 303);
      assert.match(res.headers.get('location')!, /^\/users\/sign_in/);
    });
  });
}
