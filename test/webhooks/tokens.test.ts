/**
 * A hook's secret token: cleared when the URL changes without a new one (a Maintainer who points
 * the hook at their own receiver must not receive the Owner's token), kept when the URL stays,
 * stored sealed under the key-encryption key and bound to its URL, sealed at start when it was
 * left in clear (migration 022 and the start-up pass), never shown back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { up as sealHookTokensMigration } from '../../src/store/migrations/022_sealed_hook_tokens.js';
import { Fixtures } from '../helpers/fixtures.js';
import { call } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { Receiver } from './receiver.js';
import { openIssue } from './record.js';

const KEK = 'kek-for-tests-0123456789-abcdefghijklmnop';

for (const dialect of DIALECTS) {
  describe(`hook tokens (${dialect})`, () => {
    let server: TestServer;
    let owners: Receiver;
    let thief: Receiver;
    const tokens: Record<string, string> = {};
    let projectId: number;
    let legacyHookId: number;
    let olgaId: number;

    const api = (who: string, method: string, path: string, body?: unknown) =>
      call(server.url, `/api/v4/projects/${projectId}${path}`, {
        method,
        headers: { 'PRIVATE-TOKEN': tokens[who]!, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    const storedToken = async (hookId: number) =>
      (await server.store.webhooks.hookById(hookId))!.token;

    /** `POST …/test/issues_events` as `who`, and the request the receiver got from it. */
    const testDelivery = async (who: string, hookId: number, receiver: Receiver) => {
      const before = receiver.received.length;
      const res = await api(who, 'POST', `/hooks/${hookId}/test/issues_events`);
      assert.equal(res.status, 201, res.text);
      await receiver.waitFor(before + 1);
      return receiver.received[before]!;
    };

    before(async () => {
      owners = await new Receiver().listen();
      thief = await new Receiver().listen();
      server = await startServer({
        dialect,
        config: { webhooksAllowLocal: true, keyEncryptionKey: KEK },
        seed: async (store) => {
          const f = new Fixtures(store);
          const olga = await f.user('olga');
          const mallory = await f.user('mallory');
          const project = await f.project('olga/api', olga.id);
          await f.member(project.id, olga.id, ACCESS_LEVELS.owner);
          await f.member(project.id, mallory.id, ACCESS_LEVELS.maintainer);
          projectId = project.id;
          olgaId = olga.id;
          tokens.olga = await f.token(olga.id);
          tokens.mallory = await f.token(mallory.id);
          // A hook from before tokens were sealed: its token in clear, as migration 022 found it.
          const legacy = await f.hook(project.id, `${owners.url}/legacy`, {
            token: 'legacy-secret',
            push_events: 1,
            created_at: 0,
          });
          legacyHookId = legacy.id;
          await sealHookTokensMigration(store.db as never);
        },
      });
      await openIssue(
        server.store,
        server.services,
        server.clock.now(),
        projectId,
        olgaId,
        'Sample',
      );
    });
    after(async () => {
      await server.close();
      await owners.close();
      await thief.close();
    });

    it('clears the token when a Maintainer points the hook elsewhere without a new one', async () => {
      const created = await api('olga', 'POST', '/hooks', {
        url: owners.url,
        token: 'owner-secret',
        issues_events: true,
      });
      assert.equal(created.status, 201, created.text);
      const hookId = (created.body as { id: number }).id;
      assert.equal(
        (await testDelivery('olga', hookId, owners)).headers['x-gitlab-token'],
        'owner-secret',
      );

      const moved = await api('mallory', 'PUT', `/hooks/${hookId}`, { url: `${thief.url}/steal` });
      assert.equal(moved.status, 200, moved.text);
      assert.equal('token' in (moved.body as object), false);
      const stolen = await testDelivery('mallory', hookId, thief);
      assert.equal(stolen.url, '/steal');
      assert.equal(stolen.headers['x-gitlab-token'], undefined);
      assert.equal(await storedToken(hookId), null);
      // Nothing of it reached the log either.
      const log = await api('mallory', 'GET', `/hooks/${hookId}/events`);
      assert.equal(JSON.stringify(log.body).includes('owner-secret'), false);
    });

    it('keeps a token given with the new URL, and keeps the token when the URL stays', async () => {
      const created = await api('olga', 'POST', '/hooks', {
        url: owners.url,
        token: 'first-secret',
        issues_events: true,
      });
      const hookId = (created.body as { id: number }).id;
      const withToken = await api('olga', 'PUT', `/hooks/${hookId}`, {
        url: `${owners.url}/v2`,
        token: 'second-secret',
      });
      assert.equal(withToken.status, 200, withToken.text);
      const second = await testDelivery('olga', hookId, owners);
      assert.equal(second.url, '/v2');
      assert.equal(second.headers['x-gitlab-token'], 'second-secret');

      const renamed = await api('mallory', 'PUT', `/hooks/${hookId}`, {
        url: `${owners.url}/v2`,
        name: 'renamed',
        note_events: true,
      });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal((renamed.body as { name: string }).name, 'renamed');
      assert.equal(
        (await testDelivery('olga', hookId, owners)).headers['x-gitlab-token'],
        'second-secret',
      );

      // An empty token clears it, whatever the URL.
      await api('olga', 'PUT', `/hooks/${hookId}`, { url: `${owners.url}/v2`, token: '' });
      assert.equal(
        (await testDelivery('olga', hookId, owners)).headers['x-gitlab-token'],
        undefined,
      );
    });

    it('stores tokens sealed: the row holds neither the token nor its encoding', async () => {
      const created = await api('olga', 'POST', '/hooks', {
        url: owners.url,
        token: 'sealed-secret-value',
      });
      const hookId = (created.body as { id: number }).id;
      const stored = (await storedToken(hookId))!;
      assert.match(stored, /^sealed\.v1\./);
      for (const form of [
        'sealed-secret-value',
        Buffer.from('sealed-secret-value').toString('base64url'),
        Buffer.from('sealed-secret-value').toString('base64'),
        Buffer.from('sealed-secret-value').toString('hex'),
      ]) {
        assert.equal(stored.includes(form), false, form);
      }
      const shown = await api('olga', 'GET', `/hooks/${hookId}`);
      assert.equal(JSON.stringify(shown.body).includes('sealed-secret-value'), false);
      assert.equal('token' in (shown.body as object), false);
    });

    it('seals at start a token left in clear, and sends it as it was', async () => {
      const stored = (await storedToken(legacyHookId))!;
      assert.match(stored, /^sealed\.v1\./);
      assert.equal(stored.includes('legacy-secret'), false);
      const sent = await testDelivery('olga', legacyHookId, owners);
      assert.equal(sent.url, '/legacy');
      assert.equal(sent.headers['x-gitlab-token'], 'legacy-secret');
    });

    it('never sends a sealed token to a URL it was not sealed for', async () => {
      const created = await api('olga', 'POST', '/hooks', {
        url: owners.url,
        token: 'bound-secret',
        issues_events: true,
      });
      const hookId = (created.body as { id: number }).id;
      const envelope = (await storedToken(hookId))!;
      // Someone with write access to the database moves the URL under the sealed token.
      await server.store.db
        .updateTable('project_hooks')
        .set({ url: thief.url })
        .where('id', '=', hookId)
        .execute();
      const before = thief.received.length;
      const res = await api('olga', 'POST', `/hooks/${hookId}/test/issues_events`);
      assert.equal(res.status, 201);
      let log: { status: string; internal_error_message: string | null }[] = [];
      for (let i = 0; i < 200; i++) {
        log = (await api('olga', 'GET', `/hooks/${hookId}/events`)).body as typeof log;
        if (log[0]?.internal_error_message) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(thief.received.length, before, 'nothing was sent');
      assert.match(
        log[0]!.internal_error_message ?? '',
        /^the secret token of hook \d+ cannot be decrypted: it was sealed with another key-encryption key, or for another URL$/,
      );
      assert.equal(await storedToken(hookId), envelope);
    });
  });
}
