/**
 * Property-based: random bodies (JSON of any shape, form bodies, wrong types, huge and odd
 * strings, NUL characters), ids, hook triggers and push reports thrown at every REST write route
 * pulsegate serves never produce a 5xx, a hang or a half-written object: every answer is a 2xx or
 * a 4xx in one of GitLab's JSON error shapes, and every 201 left exactly one event. Each run also
 * makes one valid write, cycling through the write routes, which must answer its exact status, so
 * a server that refuses everything fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { HOOK_TRIGGERS } from '../../src/domain/webhook-triggers.js';
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
  'id',
  'issue_iid',
  'url',
  'token',
  'push_events',
  'issues_events',
  'enable_ssl_verification',
  'changes',
];
const SHA = fc.constantFrom('0'.repeat(40), 'a'.repeat(40), 'b'.repeat(40), 'A'.repeat(40), 'x');
/** Push reports near the valid shape, each field sometimes replaced by anything. */
const change = fc.record(
  {
    before: fc.oneof(SHA, scalar),
    after: fc.oneof(SHA, scalar),
    ref: fc.oneof(fc.constantFrom('refs/heads/main', 'refs/tags/v1', 'refs/heads/a..b'), scalar),
    total_commits_count: fc.oneof(fc.constantFrom(0, 1, 2), scalar),
    commits: fc.oneof(
      fc.array(
        fc.record({
          id: fc.oneof(SHA, scalar),
          message: fc.oneof(fc.string({ maxLength: 20 }), scalar),
          timestamp: fc.oneof(fc.constant('2026-01-10T09:30:00Z'), scalar),
          author: fc.oneof(
            fc.record({ name: fc.oneof(fc.constant('A'), scalar), email: scalar }),
            scalar,
          ),
        }),
        { maxLength: 2 },
      ),
      value,
    ),
  },
  { requiredKeys: [] },
);
const pushBody = fc.record({ changes: fc.oneof(fc.array(change, { maxLength: 2 }), value) });
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 5 }),
  value,
  pushBody,
);
const idText = fc.oneof(
  fc.constantFrom('1', '2', '0', '-1', '99999', '1e3', 'abc', '%2F', '9'.repeat(30), ''),
  fc.nat({ max: 5 }).map(String),
);

const trigger = fc.oneof(fc.constantFrom(...HOOK_TRIGGERS), fc.constantFrom('bogus', '', '%00'));

/** A push of one new branch with one commit, as the hook reports it. */
const validPush = (ref: string) => ({
  changes: [
    {
      before: '0'.repeat(40),
      after: 'c'.repeat(40),
      ref: `refs/heads/${ref}`,
      total_commits_count: 1,
      commits: [
        {
          id: 'c'.repeat(40),
          message: 'Valid\n',
          timestamp: '2026-01-10T09:30:00Z',
          author: { name: 'Root', email: 'root@example.com' },
        },
      ],
    },
  ],
});

const HOOK = {
  url: 'https://hooks.example.com/made',
  name: 'n',
  description: 'd',
  token: 't',
};
const MILESTONE = { title: 'm', description: 'd', due_date: '2026-02-01' };

/**
 * Every REST write route (src/rest/*.ts): method, path from (project, id, other id, trigger),
 * and a body that would pass its parameter checks, into whose strings a NUL is injected so that
 * the request reaches the database.
 */
const ENDPOINTS: [
  method: string,
  path: (p: string, n: string, m: string, trigger: string) => string,
  plausible: Record<string, unknown> | null,
][] = [
  [
    'POST',
    () => '/projects',
    { path: 'made', name: 'Made', description: 'd', default_branch: 'main' },
  ],
  ['POST', (p) => `/projects/${p}/issues`, { title: 't', description: 'd' }],
  ['PUT', (p, n) => `/projects/${p}/issues/${n}`, { title: 't', description: 'd' }],
  ['POST', (p, n) => `/projects/${p}/issues/${n}/notes`, { body: 'b' }],
  ['POST', (p, n) => `/projects/${p}/merge_requests/${n}/notes`, { body: 'b' }],
  ['POST', (p, n) => `/projects/${p}/snippets/${n}/notes`, { body: 'b' }],
  [
    'POST',
    (p) => `/projects/${p}/merge_requests`,
    { source_branch: 's', target_branch: 'main', title: 't', description: 'd' },
  ],
  [
    'PUT',
    (p, n) => `/projects/${p}/merge_requests/${n}`,
    { title: 't', description: 'd', target_branch: 'main' },
  ],
  ['PUT', (p, n) => `/projects/${p}/merge_requests/${n}/merge`, { merge_commit_message: 'm' }],
  ['POST', (p, n) => `/projects/${p}/merge_requests/${n}/approve`, { sha: 's' }],
  ['POST', (p) => `/projects/${p}/milestones`, MILESTONE],
  ['PUT', (p, n) => `/projects/${p}/milestones/${n}`, MILESTONE],
  ['DELETE', (p, n) => `/projects/${p}/milestones/${n}`, null],
  [
    'POST',
    (p) => `/projects/${p}/members`,
    { user_id: 2, access_level: 30, expires_at: '2027-01-01' },
  ],
  ['DELETE', (p, n) => `/projects/${p}/members/${n}`, null],
  ['POST', (p) => `/projects/${p}/hooks`, HOOK],
  ['PUT', (p, n) => `/projects/${p}/hooks/${n}`, HOOK],
  ['DELETE', (p, n) => `/projects/${p}/hooks/${n}`, null],
  ['POST', (p, n, _m, t) => `/projects/${p}/hooks/${n}/test/${t}`, null],
  ['POST', (p, n, m) => `/projects/${p}/hooks/${n}/events/${m}/resend`, null],
  ['POST', (p) => `/projects/${p}/pushes`, validPush('fuzzed')],
];

/** The paths of a body's string leaves (`['changes', 0, 'ref']`). */
function stringPaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [at];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) =>
    stringPaths(v, [...at, Array.isArray(value) ? Number(k) : k]),
  );
}

/** The plausible body as is, or with a NUL put into one of its strings. */
function plausibleBody(plausible: Record<string, unknown>): fc.Arbitrary<unknown> {
  const paths = stringPaths(plausible);
  return fc.oneof(
    fc.constant(plausible),
    fc
      .tuple(fc.constantFrom(...paths), fc.constantFrom('\u0000', 'a\u0000', '\u0000b', 'a\u0000b'))
      .map(([path, text]) => {
        const copy = structuredClone(plausible);
        let node = copy as Record<string | number, unknown>;
        for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
        node[path.at(-1)!] = text;
        return copy;
      }),
  );
}

/**
 * A route with a body for it: random, or plausible (half of those with a NUL), which is sent as
 * the project's owner (its push token for a push) to the project and its first objects, so that
 * it gets past every check before the database.
 */
const request = fc.constantFrom(...ENDPOINTS).chain((endpoint) =>
  fc.tuple(
    fc.constant(endpoint),
    endpoint[2]
      ? fc.oneof(
          body.map((b) => [b, false] as const),
          plausibleBody(endpoint[2]).map((b) => [b, true] as const),
        )
      : body.map((b) => [b, false] as const),
  ),
);

/**
 * GitLab's error bodies: Grape's `error`, a `message` (text, a list of texts as `conflict!` sends a
 * model's errors, or per field), OAuth's scope error.
 */
function assertErrorShape(status: number, b: unknown, where: string): void {
  assert.ok(b !== null && typeof b === 'object' && !Array.isArray(b), `${where}: ${String(b)}`);
  const body = b as Record<string, unknown>;
  const keys = Object.keys(body).sort().join(' ');
  const text = (v: unknown) => typeof v === 'string' && v.length > 0;
  if (keys === 'error') assert.ok(text(body.error), where);
  else if (keys === 'message' && Array.isArray(body.message)) {
    assert.equal(status, 409, where);
    assert.ok(body.message.length > 0 && body.message.every(text), where);
  } else if (keys === 'message' && typeof body.message === 'object' && body.message !== null) {
    for (const messages of Object.values(body.message))
      assert.ok(Array.isArray(messages) && messages.every(text), where);
  } else if (keys === 'message') assert.ok(text(body.message), where);
  else if (keys === 'error error_description scope') {
    assert.equal(status, 403, where);
    assert.equal(body.error, 'insufficient_scope', where);
  } else assert.fail(`${where}: unexpected error body ${JSON.stringify(body)}`);
  if (status === 401) assert.deepEqual(body, { message: '401 Unauthorized' }, where);
  if (status === 404 && typeof body.message === 'string')
    assert.match(body.message, /^404 .*Not Found$/, where);
}

for (const dialect of DIALECTS) {
  describe(`fuzzing the writes (${dialect})`, () => {
    let a: Actors;
    let project: number;
    /** Random callers: two users' `api` tokens and alice's push token. */
    const callers: Record<string, string> = {};
    let rootPush: string;
    before(async () => {
      a = await startWithUsers(dialect, ['alice', 'bob', 'root']);
      const res = await api(a.server, 'POST', '/projects', a.tokens.alice, {
        path: 'fuzz',
        visibility: 'public',
      });
      project = (res.body as { id: number }).id;
      callers.alice = a.tokens.alice!;
      callers.bob = a.tokens.bob!;
      callers.push = await a.fx.token(a.ids.alice!, ['write_repository']);
      rootPush = await a.fx.token(a.ids.root!, ['write_repository']);
      // Something for the random ids to find: an issue, a merge request, a hook with a delivery.
      const made = [
        await api(a.server, 'POST', `/projects/${project}/issues`, a.tokens.root, { title: 'One' }),
        await api(a.server, 'POST', `/projects/${project}/merge_requests`, a.tokens.root, {
          source_branch: 'one',
          target_branch: 'main',
          title: 'One',
        }),
        await api(a.server, 'POST', `/projects/${project}/hooks`, a.tokens.root, {
          url: 'https://hooks.example.com/fuzz',
          issues_events: true,
        }),
      ];
      for (const r of made) assert.equal(r.status, 201, r.text);
    });
    after(() => a.server.close());

    /**
     * The valid write of run `n`, cycling through the write routes, as an administrator (whatever
     * random membership changes did) or bob, on objects no random request can remove.
     */
    function validWrite(
      n: number,
    ): [method: string, path: string, token: string, body: unknown, status: number] {
      const p = `/projects/${project}`;
      const root = a.tokens.root!;
      switch (n % 8) {
        case 0:
          return ['POST', `${p}/issues`, a.tokens.bob!, { title: `valid ${n}` }, 201];
        case 1:
          return ['POST', `${p}/issues/1/notes`, root, { body: `valid ${n}` }, 201];
        case 2:
          return ['POST', `${p}/milestones`, root, { title: `valid ${n}` }, 201];
        case 3:
          return [
            'POST',
            `${p}/merge_requests`,
            root,
            { source_branch: `valid-${n}`, target_branch: 'main', title: `valid ${n}` },
            201,
          ];
        case 4:
          return [
            'POST',
            `${p}/hooks`,
            root,
            { url: 'https://hooks.example.com/valid', name: `valid ${n}` },
            201,
          ];
        case 5:
          return ['POST', `${p}/pushes`, rootPush, validPush(`valid-${n}`), 201];
        case 6:
          return ['PUT', `${p}/issues/1`, root, { title: `valid ${n}` }, 200];
        default:
          return ['POST', '/projects', root, { path: `valid-${n}` }, 201];
      }
    }

    it('answers every random write with a 2xx or a 4xx in GitLab shapes, and valid ones succeed', async () => {
      let valid = 0;
      await fc.assert(
        fc.asyncProperty(
          request,
          fc.oneof(fc.constant(String(project)), fc.constant('alice%2Ffuzz'), idText),
          idText,
          idText,
          trigger,
          fc.constantFrom('json', 'form'),
          fc.constantFrom('alice', 'bob', 'push'),
          async (
            [[method, path], [payload, plausible]],
            randomProject,
            randomId,
            other,
            hookTrigger,
            encoding,
            randomCaller,
          ) => {
            const [projectId, id] = plausible ? [String(project), '1'] : [randomProject, randomId];
            const pushes = path('', '', '', '').endsWith('/pushes');
            const who = !plausible ? randomCaller : pushes ? 'push' : 'alice';
            const url = path(projectId, id, other, hookTrigger);
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
                  'private-token': callers[who]!,
                  'content-type': 'application/x-www-form-urlencoded',
                },
                payload: form.toString(),
              });
              res = {
                status: r.statusCode,
                body: r.body ? (JSON.parse(r.body) as unknown) : undefined,
              };
            } else {
              const r = await api(a.server, method, url, callers[who], payload);
              res = { status: r.status, body: r.body };
            }
            const where = `${method} ${url} ${JSON.stringify(payload)} → ${res.status} ${JSON.stringify(res.body)}`;
            assert.ok(res.status < 500, where);
            if (res.status >= 400) assertErrorShape(res.status, res.body, where);
            // A valid write in every run: it must still succeed, with its exact status.
            const [vMethod, vPath, token, vBody, status] = validWrite(valid++);
            const ok = await api(a.server, vMethod, vPath, token, vBody);
            assert.equal(ok.status, status, `${vMethod} ${vPath}: ${ok.text}`);
          },
        ),
        { numRuns: 200, includeErrorInReport: true },
      );
      // Every created issue left exactly one "created" event.
      const issues = await api(
        a.server,
        'GET',
        `/projects/${project}/issues?state=all&per_page=1`,
        a.tokens.root,
      );
      const events = await api(
        a.server,
        'GET',
        `/projects/${project}/events?action=created&target_type=issue&per_page=1`,
        a.tokens.root,
      );
      assert.equal(events.headers.get('x-total'), issues.headers.get('x-total'));
      assert.ok(valid >= 200);
    });
  });
}
