/**
 * The hooks API: who may use it (maintainers), GitLab's entity (never the token), update and
 * delete, Grape's validation messages, and a property over arbitrary bodies: every body is either
 * stored exactly as Grape would coerce it (201) or refused naming exactly the invalid fields (400).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { HOOK_TRIGGERS } from '../../src/domain/webhook-triggers.js';
import { Fixtures } from '../helpers/fixtures.js';
import { call } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`hooks API (${dialect})`, () => {
    let server: TestServer;
    const tokens: Record<string, string> = {};
    let projectId: number;

    const api = (who: string | null, method: string, path: string, body?: unknown) =>
      call(server.url, `/api/v4${path}`, {
        method,
        headers: {
          ...(who ? { 'PRIVATE-TOKEN': tokens[who]! } : {}),
          'content-type': 'application/json',
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    before(async () => {
      server = await startServer({
        dialect,
        config: { webhooksAllowLocal: false },
        seed: async (store) => {
          const f = new Fixtures(store);
          const owner = await f.user('olga');
          const dev = await f.user('dev');
          const stranger = await f.user('stranger');
          const root = await f.user('root', { admin: true });
          const project = await f.project('olga/secret', owner.id, 'private');
          await f.member(project.id, owner.id, ACCESS_LEVELS.maintainer);
          await f.member(project.id, dev.id, ACCESS_LEVELS.developer);
          projectId = project.id;
          tokens.olga = await f.token(owner.id);
          tokens.dev = await f.token(dev.id);
          tokens.stranger = await f.token(stranger.id);
          tokens.root = await f.token(root.id);
          tokens.reader = await f.token(owner.id, ['read_api']);
        },
      });
    });
    after(() => server.close());

    it('is for maintainers (and admins) only', async () => {
      const path = `/projects/${projectId}/hooks`;
      assert.equal((await api(null, 'GET', path)).status, 401);
      const dev = await api('dev', 'GET', path);
      assert.equal(dev.status, 403);
      assert.deepEqual(dev.body, { message: '403 Forbidden' });
      const stranger = await api('stranger', 'GET', path);
      assert.equal(stranger.status, 404);
      assert.deepEqual(stranger.body, { message: '404 Project Not Found' });
      assert.equal((await api('olga', 'GET', path)).status, 200);
      assert.equal((await api('root', 'GET', path)).status, 200);
      assert.equal((await api('olga', 'GET', `/projects/olga%2Fsecret/hooks`)).status, 200);
      // A read-only token reads, never writes.
      assert.equal((await api('reader', 'GET', path)).status, 200);
      assert.equal(
        (await api('reader', 'POST', path, { url: 'https://example.com/' })).status,
        403,
      );
    });

    it('creates, shows, updates and deletes a hook; the token never comes back', async () => {
      const created = await api('olga', 'POST', `/projects/${projectId}/hooks`, {
        url: 'https://hooks.example.com/gitlab',
        token: 'tok',
        issues_events: 'true',
        enable_ssl_verification: false,
      });
      assert.equal(created.status, 201);
      const hook = created.body as Record<string, unknown>;
      assert.deepEqual(hook, {
        id: hook.id,
        url: 'https://hooks.example.com/gitlab',
        name: '',
        description: '',
        project_id: projectId,
        push_events: true,
        tag_push_events: false,
        issues_events: true,
        confidential_issues_events: false,
        merge_requests_events: false,
        note_events: false,
        confidential_note_events: false,
        member_events: false,
        push_events_branch_filter: '',
        enable_ssl_verification: false,
        alert_status: 'executable',
        disabled_until: null,
        url_variables: [],
        created_at: '2026-01-15T12:00:00.000Z',
      });
      assert.equal(created.text.includes('tok"'), false);
      const path = `/projects/${projectId}/hooks/${hook.id as number}`;
      const shown = await api('olga', 'GET', path);
      assert.deepEqual(shown.body, hook);
      const updated = await api('olga', 'PUT', path, {
        url: 'https://other.example.com/',
        push_events: false,
        note_events: 1,
      });
      assert.equal(updated.status, 200);
      assert.equal((updated.body as { url: string }).url, 'https://other.example.com/');
      assert.equal((updated.body as { push_events: boolean }).push_events, false);
      assert.equal((updated.body as { note_events: boolean }).note_events, true);
      assert.equal((updated.body as { issues_events: boolean }).issues_events, true, 'unchanged');
      const list = await api('olga', 'GET', `/projects/${projectId}/hooks`);
      assert.deepEqual(
        (list.body as { id: number }[]).map((h) => h.id),
        [hook.id],
      );
      assert.equal((await api('dev', 'DELETE', path)).status, 403);
      const deleted = await api('olga', 'DELETE', path);
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      const gone = await api('olga', 'GET', path);
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body, { message: '404 Hook Not Found' });
      const badId = await api('olga', 'GET', `/projects/${projectId}/hooks/abc`);
      assert.equal(badId.status, 400);
      assert.deepEqual(badId.body, { error: 'hook_id is invalid' });
    });

    it("answers Grape's messages for missing and invalid parameters", async () => {
      const missing = await api('olga', 'POST', `/projects/${projectId}/hooks`, {
        push_events: true,
      });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body, { error: 'url is missing' });
      const invalid = await api('olga', 'POST', `/projects/${projectId}/hooks`, {
        url: 7,
        issues_events: 'maybe',
        enable_ssl_verification: [],
      });
      assert.deepEqual(invalid.body, {
        error: 'url is invalid, issues_events is invalid, enable_ssl_verification is invalid',
      });
    });

    it('stores any body exactly as coerced, or names exactly the invalid fields', async () => {
      const truthy = ['true', '1', 't', 'yes', 'on', 'TRUE'];
      const falsy = ['false', '0', 'f', 'no', 'off'];
      const flagValue = fc.oneof(
        fc.boolean(),
        fc.constantFrom(...truthy, ...falsy, 1, 0),
        fc.constantFrom('maybe', 2, null, [], {}),
      );
      const expectBool = (v: unknown): boolean | 'invalid' | undefined => {
        if (v === undefined) return undefined;
        if (typeof v === 'boolean') return v;
        if (v === 1 || v === 0) return v === 1;
        if (typeof v === 'string' && truthy.includes(v)) return true;
        if (typeof v === 'string' && falsy.includes(v)) return false;
        return 'invalid';
      };
      const body = fc.record(
        {
          url: fc.constantFrom('https://a.example.com/x', 'http://93.184.216.34:8080/h'),
          token: fc.string({ maxLength: 20 }),
          ...Object.fromEntries(HOOK_TRIGGERS.map((t) => [t, flagValue])),
          enable_ssl_verification: flagValue,
        },
        { requiredKeys: ['url'] },
      );
      await fc.assert(
        fc.asyncProperty(body, async (sent) => {
          const res = await api('olga', 'POST', `/projects/${projectId}/hooks`, sent);
          const fields = [...HOOK_TRIGGERS, 'enable_ssl_verification'] as const;
          const invalid = fields.filter(
            (f) => expectBool((sent as Record<string, unknown>)[f]) === 'invalid',
          );
          if (invalid.length > 0) {
            assert.equal(res.status, 400);
            assert.deepEqual(res.body, { error: invalid.map((f) => `${f} is invalid`).join(', ') });
            return;
          }
          assert.equal(res.status, 201, res.text);
          const hook = res.body as Record<string, unknown>;
          assert.equal('token' in hook, false);
          for (const trigger of HOOK_TRIGGERS) {
            const given = expectBool((sent as Record<string, unknown>)[trigger]);
            const expected = given ?? trigger === 'push_events';
            assert.equal(hook[trigger], expected, trigger);
          }
          assert.equal(
            hook.enable_ssl_verification,
            expectBool(sent.enable_ssl_verification) ?? true,
          );
          const del = await api(
            'olga',
            'DELETE',
            `/projects/${projectId}/hooks/${hook.id as number}`,
          );
          assert.equal(del.status, 204);
        }),
        { numRuns: 60 },
      );
    });
  });
}
