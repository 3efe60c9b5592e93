import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, type OAuthWorld, PASSWORD, csrfOf, startOAuthServer } from '../oauth/support.js';

describe('home page', () => {
  let world: OAuthWorld;
  before(async () => {
    world = await startOAuthServer();
  });
  after(() => world.close());

  it('signed out: says what pulsegate is and links to sign-in and GraphiQL, as a protected page', async () => {
    const browser = new Browser(world.server.url);
    const page = await browser.fetch('/');
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.match(page.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
    assert.match(page.text, /<a class="button" href="\/users\/sign_in">Sign in<\/a>/);
    assert.match(page.text, /<a href="\/graphiql">GraphiQL<\/a>/);
    assert.doesNotMatch(page.text, /Your activity/);
  });

  it("signed in: shows the user's own events, as GET /api/v4/events lists them", async () => {
    const browser = new Browser(world.server.url);
    const form = await browser.fetch('/users/sign_in');
    const signIn = await browser.fetch('/users/sign_in', {
      form: { authenticity_token: csrfOf(form.text), login: 'alice', password: PASSWORD },
    });
    assert.equal(signIn.status, 303);
    const page = await browser.fetch('/');
    assert.equal(page.status, 200);
    assert.match(page.text, /<h1>Your activity<\/h1>/);
    // Markup whitespace is not content: compare with it folded away.
    const text = page.text.replace(/\s*([<>])\s*/g, '$1').replace(/\s+/g, ' ');
    // GitLab's sentence (never "opened Issue … in"), links to the user and the project, the
    // relative time with the exact one on hover.
    assert.match(
      text,
      /<p class="event-line"><a class="author" href="\/alice" title="Alice">alice<\/a>opened issue<a class="reference" href="\/alice\/app\/-\/issues\/1"><strong>#1<\/strong><\/a><span class="target-title">«First bug»<\/span>at<a class="project" href="\/alice\/app">alice \/ app<\/a><\/p><time datetime="2026-01-02T10:00:00.000Z" title="2026-01-02 10:00:00 UTC">1 week ago<\/time>/,
    );
    assert.match(text, /<a href="\/dashboard\/activity">Activity<\/a>/);
    assert.match(page.text, /Sign out alice/);
  });
});
