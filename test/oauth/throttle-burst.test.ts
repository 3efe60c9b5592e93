/**
 * B.12 under concurrency: a burst of parallel guesses gets no more evaluations than the limit.
 * Each attempt is counted (reserved) before the secret is checked, so the requests of one burst
 * cannot all read "no failures yet". Evaluated attempts are the non-429 answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { THROTTLE_POLICIES } from '../../src/services/accounts/throttle.js';
import { DIALECTS } from '../helpers/server.js';
import {
  Browser,
  type OAuthWorld,
  PASSWORD,
  csrfOf,
  post,
  startOAuthServer,
  addUser,
} from './support.js';

/** How many answers had each status, e.g. `{ 400: 5, 429: 55 }`. */
function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const status of statuses) out[status] = (out[status] ?? 0) + 1;
  return out;
}

for (const dialect of DIALECTS) {
  describe(`parallel guesses against the throttle (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect });
      await addUser(world, 'carol');
    });
    after(() => world.close());

    /** Every test starts with fresh windows. */
    const nextWindow = () => world.server.clock.advance(THROTTLE_POLICIES.address.windowMs);
    const grant = (username: string, password: string) =>
      post(world.server, '/oauth/token', { grant_type: 'password', username, password });

    it('60 parallel password grants for one account, the last right: the limit evaluated, the rest 429', async () => {
      nextWindow();
      const { limit } = THROTTLE_POLICIES.account;
      const replies = await Promise.all(
        Array.from({ length: 60 }, (_, i) => grant('carol', i === 59 ? PASSWORD : `wrong-${i}`)),
      );
      const statuses = replies.map((r) => r.status);
      assert.deepEqual(tally(statuses), { 400: limit, 429: 60 - limit }, String(statuses));
      for (const reply of replies.filter((r) => r.status === 429)) {
        assert.match(reply.headers.get('retry-after')!, /^\d+$/);
        assert.equal(reply.body.error, 'too_many_requests');
      }
      // Locked until the window ends, even for the right password; then it works again.
      assert.equal((await grant('carol', PASSWORD)).status, 429);
      nextWindow();
      assert.equal((await grant('carol', PASSWORD)).status, 200);
    });

    it('60 parallel guesses from one address over many accounts: the address limit evaluated', async () => {
      nextWindow();
      const { limit } = THROTTLE_POLICIES.address;
      const statuses = (
        await Promise.all(Array.from({ length: 60 }, (_, i) => grant(`nobody${i}`, 'guess')))
      ).map((r) => r.status);
      assert.deepEqual(tally(statuses), { 400: limit, 429: 60 - limit }, String(statuses));
    });

    it('parallel correct passwords are never refused, and do not use up the address budget', async () => {
      nextWindow();
      const { limit } = THROTTLE_POLICIES.account;
      // One more account than the address has places left after limit - 1 failures.
      const users = THROTTLE_POLICIES.address.limit - (limit - 1) + 1;
      for (let i = 0; i < users; i++) {
        await addUser(world, `dave${i}`);
      }
      for (let i = 0; i < limit - 1; i++) {
        assert.equal((await grant('carol', `wrong-${i}`)).status, 400);
      }
      // More correct sign-ins than the address has places left, and more than the account limit
      // for one account, all at once: some wait for others to finish, none is refused.
      const statuses = (
        await Promise.all([
          ...Array.from({ length: users }, (_, i) => grant(`dave${i}`, PASSWORD)),
          ...Array.from({ length: limit + 1 }, () => grant('bob', PASSWORD)),
        ])
      ).map((r) => r.status);
      assert.deepEqual(tally(statuses), { 200: users + limit + 1 });
      const { throttle } = world.server.services.oauth;
      assert.equal(await throttle.failures('address', '127.0.0.1'), limit - 1);
      // One failure short of the limit, then a success clears the account.
      assert.equal((await grant('carol', PASSWORD)).status, 200);
      const carol = (await world.server.store.users.byLogin('carol'))!;
      assert.equal(await throttle.failures('account', `user:${carol.id}`), 0);
    });

    it('30 parallel sign-in form posts for one account: the limit evaluated (the form shares the check)', async () => {
      nextWindow();
      const { limit } = THROTTLE_POLICIES.account;
      const browser = new Browser(world.server.url);
      const page = await browser.fetch('/users/sign_in');
      const token = csrfOf(page.text);
      const statuses = (
        await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            browser.fetch('/users/sign_in', {
              form: { authenticity_token: token, login: 'carol', password: `wrong-${i}` },
            }),
          ),
        )
      ).map((r) => r.status);
      assert.deepEqual(tally(statuses), { 401: limit, 429: 30 - limit }, String(statuses));
    });

    it('30 parallel two-factor codes for one pending sign-in: the account limit evaluated', async () => {
      nextWindow();
      const { limit } = THROTTLE_POLICIES.account;
      const { twoFactor } = world.server.services.oauth;
      const dave = await addUser(world, 'dave');
      const { secret } = await twoFactor.enrolment(dave.id);
      const code = twoFactor.currentCode(secret);
      assert.ok(await twoFactor.enable(dave.id, code));
      const browser = new Browser(world.server.url);
      const page = await browser.fetch('/users/sign_in');
      const step = await browser.fetch('/users/sign_in', {
        form: { authenticity_token: csrfOf(page.text), login: 'dave', password: PASSWORD },
      });
      assert.equal(step.headers.get('location'), '/users/two_factor');
      const form = await browser.fetch('/users/two_factor');
      const token = csrfOf(form.text);
      // Six-digit guesses, none of them a code the verifier's window would accept.
      const now = world.server.clock.now();
      const valid = new Set(
        [-30_000, 0, 30_000].map((d) => twoFactor.currentCode(secret, now + d)),
      );
      const guesses = Array.from({ length: 40 }, (_, i) => String(100000 + i))
        .filter((g) => !valid.has(g))
        .slice(0, 30);
      const statuses = (
        await Promise.all(
          guesses.map((guess) =>
            browser.fetch('/users/two_factor', {
              form: { authenticity_token: token, otp_attempt: guess },
            }),
          ),
        )
      ).map((r) => r.status);
      assert.deepEqual(tally(statuses), { 401: limit, 429: 30 - limit }, String(statuses));
    });

    it('40 parallel wrong client secrets from one address: the client limit evaluated', async () => {
      nextWindow();
      const { limit } = THROTTLE_POLICIES.client;
      const statuses = (
        await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            post(world.server, '/oauth/token', {
              grant_type: 'refresh_token',
              refresh_token: 'x',
              client_id: world.app.uid,
              client_secret: `wrong-${i}`,
            }),
          ),
        )
      ).map((r) => r.status);
      assert.deepEqual(tally(statuses), { 401: limit, 429: 40 - limit }, String(statuses));
    });
  });
}
