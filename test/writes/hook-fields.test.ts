/**
 * A NUL character anywhere in a write's body or query is a 400 naming the parameter, before any
 * route reads it (PostgreSQL cannot store one: it was a 500 on the hook fields), in JSON and
 * form bodies; a project hook's name, description and token have GitLab's model limits.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import { call } from '../helpers/http.js';
import { type Actors, api, startWithUsers } from './helpers.js';

const FIELDS = ['url', 'token', 'name', 'description'] as const;

for (const dialect of DIALECTS) {
  describe(`NUL characters and hook field limits (${dialect})`, () => {
    let a: Actors;
    let project: number;
    let hook: number;
    const base = { url: 'https://hooks.example.com/in', name: 'n', description: 'd', token: 't' };

    const as = (method: string, path: string, body?: unknown) =>
      api(a.server, method, path, a.tokens.alice, body);
    const form = (method: string, path: string, fields: Record<string, string>) =>
      call(a.server.url, `/api/v4${path}`, {
        method,
        headers: {
          'private-token': a.tokens.alice!,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams(fields).toString(),
      });

    before(async () => {
      a = await startWithUsers(dialect, ['alice']);
      const created = await as('POST', '/projects', { path: 'nul', visibility: 'private' });
      project = (created.body as { id: number }).id;
      const h = await as('POST', `/projects/${project}/hooks`, base);
      assert.equal(h.status, 201, h.text);
      hook = (h.body as { id: number }).id;
    });
    after(() => a.server.close());

    it('a NUL in any hook field, on create and edit, JSON or form: 400 naming it, nothing stored', async () => {
      for (const field of FIELDS) {
        const value = `${base[field]}\u0000x`;
        for (const [method, path] of [
          ['POST', `/projects/${project}/hooks`],
          ['PUT', `/projects/${project}/hooks/${hook}`],
        ] as const) {
          for (const r of [
            await as(method, path, { ...base, [field]: value }),
            await form(method, path, { ...base, [field]: value }),
          ]) {
            assert.equal(r.status, 400, `${method} ${field}: ${r.text}`);
            assert.deepEqual(r.body, { error: `${field} is invalid` });
          }
        }
      }
      const list = await as('GET', `/projects/${project}/hooks`);
      assert.deepEqual(
        (list.body as Array<{ id: number; url: string; name: string }>).map((h) => [
          h.id,
          h.url,
          h.name,
        ]),
        [[hook, base.url, 'n']],
      );
    });

    it('every write route: a NUL in a key, a nested value or the query is named', async () => {
      const issue = await as('POST', `/projects/${project}/issues?title=a%00b`, { title: 'ok' });
      assert.equal(issue.status, 400);
      assert.deepEqual(issue.body, { error: 'title is invalid' });
      const key = await as('POST', `/projects/${project}/issues`, { title: 'ok', 'x\u0000': 1 });
      assert.equal(key.status, 400);
      assert.deepEqual(key.body, { error: 'x\u0000 is invalid' });
      const sha = 'a'.repeat(40);
      const push = await as('POST', `/projects/${project}/pushes`, {
        changes: [
          {
            before: '0'.repeat(40),
            after: sha,
            ref: 'refs/heads/main',
            total_commits_count: 1,
            commits: [
              {
                id: sha,
                message: 'a\u0000b',
                timestamp: '2026-01-10T09:30:00+02:00',
                author: { name: 'A', email: 'a@example.com' },
              },
            ],
          },
        ],
      });
      assert.equal(push.status, 400, push.text);
      assert.deepEqual(push.body, { error: 'changes[0][commits][0][message] is invalid' });
      const list = await as('GET', `/projects/${project}/issues`);
      assert.deepEqual(list.body, []);
    });

    it("GitLab's limits: name 255, description 2,048 characters; a token holds no newline", async () => {
      const path = `/projects/${project}/hooks/${hook}`;
      const fine = await as('PUT', path, {
        url: base.url,
        name: 'é'.repeat(255),
        description: 'd'.repeat(2048),
      });
      assert.equal(fine.status, 200, fine.text);
      const long = await as('PUT', path, {
        url: base.url,
        name: 'é'.repeat(256),
        description: 'd'.repeat(2049),
        token: 'a\nX-Injected: 1',
      });
      assert.equal(long.status, 400);
      assert.deepEqual(long.body, {
        message: {
          name: ['is too long (maximum is 255 characters)'],
          description: ['is too long (maximum is 2048 characters)'],
          token: ['is invalid'],
        },
      });
      const created = await as('POST', `/projects/${project}/hooks`, {
        ...base,
        token: 't'.repeat(2049),
      });
      assert.equal(created.status, 400);
      assert.deepEqual(created.body, {
        message: { token: ['is too long (maximum is 2048 characters)'] },
      });
      const stored = await as('GET', path);
      assert.equal((stored.body as { name: string }).name, 'é'.repeat(255));
      assert.equal((stored.body as { description: string }).description, 'd'.repeat(2048));
    });
  });
}
