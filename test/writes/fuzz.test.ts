/**
 * Property-based: random bodies (JSON of any shape, form bodies, wrong types, huge and odd
 * strings), ids and state events thrown at every write never produce a 5xx, a hang or a
 * half-written object: every answer is a 2xx or 4xx in GitLab's JSON shapes, and every 201 left
 * exactly one event. Valid writes are mixed into every run and must still succeed, so a server
 * that refuses everything fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DIALECTS } from '../helpers/server.js';
import { type Actors, api, startWithUsers } from './helpers.js';

const scalar = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    'close',
    'reopen',
    'activate',
    'true',
    '30',
    '2026-02-30',
    '\u0000',
    'x'.repeat(300),
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(2 ** 53, -1, 0, 30, 10, 50),
);
const value = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), scalar, { maxKeys: 2 }),
);
const KEYS = [
  'title',
  'description',
  'confidential',
  'state_event',
  'body',
  'source_branch',
  'target_branch',
  'user_id',
  'access_level',
  'expires_at',
  'due_date',
  'start_date',
  'milestone_id',
  'name',
  'path',
  'visibility',
  'iids',
];
const body = fc.oneof(fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 5 }), value);
const idText = fc.oneof(
  fc.constantFrom('1', '2', '0', '-1', '99999', '1e3', 'abc', '%2F', '9'.repeat(30), ''),
  fc.nat({ max: 5 }).map(String),
);

const ENDPOINTS: [method: string, path: (p: string, n: string) => string][] = [
  ['POST', (p) => `/projects/${p}/issues`],
  ['PUT', (p, n) => `/projects/${p}/issues/${n}`],
  ['POST', (p, n) => `/projects/${p}/issues/${n}/notes`],
  ['POST', (p) => `/projects/${p}/merge_requests`],
  ['PUT', (p, n) => `/projects/${p}/merge_requests/${n}`],
  ['PUT', (p, n) => `/projects/${p}/merge_requests/${n}/merge`],
  ['POST', (p, n) => `/projects/${p}/merge_requests/${n}/approve`],
  ['POST', (p) => `/projects/${p}/milestones`],
  ['PUT', (p, n) => `/projects/${p}/milestones/${n}`],
  ['DELETE', (p, n) => `/projects/${p}/milestones/${n}`],
  ['POST', (p) => `/projects/${p}/members`],
  ['DELETE', (p, n) => `/projects/${p}/members/${n}`],
  ['POST', () => '/projects'],
];

for (const dialect of DIALECTS) {
  describe(`fuzzing the writes (${dialect})`, () => {
    let a: Actors;
    let project: number;
    before(async () => {
      a = await startWithUsers(dialect, ['alice', 'bob']);
      const res = await api(a.server, 'POST', '/projects', a.tokens.alice, {
        path: 'fuzz',
        visibility: 'public',
      });
      project = (res.body as { id: number }).id;
    });
    after(() => a.server.close());

    it('answers every random write with a 2xx or a 4xx in GitLab shapes, and valid ones succeed', async () => {
      let valid = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ENDPOINTS),
          fc.oneof(fc.constant(String(project)), fc.constant('alice%2Ffuzz'), idText),
          idText,
          body,
          fc.constantFrom('json', 'form'),
          fc.constantFrom('alice', 'bob'),
          async ([method, path], projectId, id, payload, encoding, who) => {
            const url = path(projectId, id);
            let res;
            if (
              encoding === 'form' &&
              payload !== null &&
              typeof payload === 'object' &&
              !Array.isArray(payload)
            ) {
              const form = new URLSearchParams();
              for (const [k, v] of Object.entries(payload))
                form.append(k, typeof v === 'string' ? v : JSON.stringify(v));
              const r = await a.server.app.inject({
                method: method as 'POST',
                url: `/api/v4${url}`,
                headers: {
                  'private-token': a.tokens[who]!,
                  'content-type': 'application/x-www-form-urlencoded',
                },
                payload: form.toString(),
              });
              res = {
                status: r.statusCode,
                body: r.body ? (JSON.parse(r.body) as unknown) : undefined,
              };
            } else {
              const r = await api(a.server, method, url, a.tokens[who], payload);
              res = { status: r.status, body: r.body };
            }
            assert.ok(
              res.status < 500,
              `${method} ${url} ${JSON.stringify(payload)} → ${res.status} ${JSON.stringify(res.body)}`,
            );
            if (res.status >= 400) {
              const b = res.body as Record<string, unknown>;
              assert.ok(
                b &&
                  (typeof b.message === 'string' ||
                    typeof b.error === 'string' ||
                    typeof b.message === 'object'),
                `error shape of ${method} ${url}: ${JSON.stringify(b)}`,
              );
            }
            // A valid write in every run: it must still succeed.
            const ok = await api(a.server, 'POST', `/projects/${project}/issues`, a.tokens.bob, {
              title: `valid ${valid++}`,
            });
            assert.equal(ok.status, 201, ok.text);
          },
        ),
        { numRuns: 150 },
      );
      // Every created issue left exactly one "created" event.
      const issues = await api(
        a.server,
        'GET',
        `/projects/${project}/issues?state=all&per_page=1`,
        a.tokens.alice,
      );
      const events = await api(
        a.server,
        'GET',
        `/projects/${project}/events?action=created&target_type=issue&per_page=1`,
        a.tokens.alice,
      );
      assert.equal(events.headers.get('x-total'), issues.headers.get('x-total'));
      assert.ok(valid >= 150);
    });
  });
}
