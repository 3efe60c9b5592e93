/**
 * Transport errors, limits and field errors: each case runs against both engines, which must give
 * the same status and the same body, with an `extensions.code`, never a 500 or a stack trace.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { ENGINES } from './client.js';

interface Case {
  name: string;
  status: number;
  /** Expected body, or a predicate over it. */
  body: unknown;
  request: (t: Tokens) => {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  };
}

interface Tokens {
  alice: string;
  readUser: string;
  expired: string;
  revoked: string;
  blocked: string;
  projectId: number;
}

const post = (query: string, variables?: unknown, headers: Record<string, string> = {}) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
});
const err = (message: string, code: string, extra: object = {}) => ({
  errors: [{ message, ...extra, extensions: { code } }],
});

function nested(depth: number): string {
  // currentUser { events { nodes { author { events { nodes { ... } } } } } }: 3 levels per hop.
  let inner = 'username';
  let d = 1;
  while (d + 3 <= depth - 1) {
    inner = `events(first: 1) { nodes { author { ${inner} } } }`;
    d += 3;
  }
  return `{ currentUser { ${inner} } }`;
}

const CASES: Case[] = [
  {
    name: 'unknown token',
    status: 401,
    body: err('Invalid token', 'UNAUTHENTICATED'),
    request: () => post('{ currentUser { id } }', undefined, { 'PRIVATE-TOKEN': 'glpat-nope' }),
  },
  {
    name: 'expired token',
    status: 401,
    body: err(
      'Token is expired. You can either do re-authorization or token refresh.',
      'UNAUTHENTICATED',
    ),
    request: (t) =>
      post('{ currentUser { id } }', undefined, { authorization: `Bearer ${t.expired}` }),
  },
  {
    name: 'revoked token',
    status: 401,
    body: err('Token was revoked. You have to re-authorize from the user.', 'UNAUTHENTICATED'),
    request: (t) => post('{ currentUser { id } }', undefined, { 'PRIVATE-TOKEN': t.revoked }),
  },
  {
    name: 'blocked user',
    status: 403,
    body: err('Your account has been blocked.', 'FORBIDDEN'),
    request: (t) => post('{ currentUser { id } }', undefined, { 'PRIVATE-TOKEN': t.blocked }),
  },
  {
    name: 'two bearer tokens',
    status: 400,
    body: err('Both Authorization header and payload includes access token.', 'BAD_REQUEST'),
    request: (t) => ({
      ...post('{ currentUser { id } }', undefined, { authorization: `Bearer ${t.alice}` }),
      path: `/api/graphql?access_token=${t.alice}`,
    }),
  },
  {
    name: 'query too large',
    status: 400,
    body: err('Query too large', 'QUERY_TOO_LARGE'),
    request: () => post(`{ currentUser { id } }${' '.repeat(10_000)}`),
  },
  {
    name: 'no query',
    status: 400,
    body: err('Must provide query string.', 'BAD_REQUEST'),
    request: () => ({ headers: { 'content-type': 'application/json' }, body: '{"variables":{}}' }),
  },
  {
    name: 'batched',
    status: 400,
    body: err('Batched queries are not supported.', 'BAD_REQUEST'),
    request: () => ({
      headers: { 'content-type': 'application/json' },
      body: '[{"query":"{ currentUser { id } }"}]',
    }),
  },
  {
    name: 'invalid JSON',
    status: 400,
    body: err('body is not valid JSON', 'BAD_REQUEST'),
    request: () => ({ headers: { 'content-type': 'application/json' }, body: '{"query": ' }),
  },
  {
    name: 'variables not an object',
    status: 400,
    body: err('Variables must be an object.', 'BAD_REQUEST'),
    request: () => post('{ currentUser { id } }', [1]),
  },
  {
    name: 'syntax error',
    status: 400,
    body: err('Syntax Error: Expected Name, found <EOF>.', 'GRAPHQL_PARSE_FAILED', {
      locations: [{ line: 1, column: 16 }],
    }),
    request: () => post('{ currentUser {'),
  },
  {
    name: 'unknown field',
    status: 400,
    body: err('Cannot query field "secret" on type "User".', 'GRAPHQL_VALIDATION_FAILED', {
      locations: [{ line: 1, column: 17 }],
    }),
    request: () => post('{ currentUser { secret } }'),
  },
  {
    name: 'bad enum literal',
    status: 400,
    body: err(
      'Value "created" does not exist in "EventAction" enum. Did you mean the enum value "CREATED" or "UPDATED"?',
      'GRAPHQL_VALIDATION_FAILED',
      { locations: [{ line: 1, column: 27 }] },
    ),
    request: () => post('{ events(filter: {action: created}) { totalCount } }'),
  },
  {
    name: 'bad date variable',
    status: 400,
    body: err(
      'Variable "$d" got invalid value "2024-02-30"; Date must be a date in YYYY-MM-DD format (a time part is accepted and ignored, as on REST): "2024-02-30"',
      'BAD_USER_INPUT',
      { locations: [{ line: 1, column: 9 }] },
    ),
    request: () =>
      post('query Q($d: Date) { events(filter: {before: $d}) { totalCount } }', {
        d: '2024-02-30',
      }),
  },
  {
    name: 'ambiguous operation',
    status: 400,
    body: err(
      'Must provide operation name if query contains multiple operations.',
      'OPERATION_RESOLUTION_FAILURE',
    ),
    request: () => post('query A { currentUser { id } } query B { currentUser { id } }'),
  },
  {
    name: 'a mutation selecting a query field',
    status: 400,
    body: err('Cannot query field "currentUser" on type "Mutation".', 'GRAPHQL_VALIDATION_FAILED', {
      locations: [{ line: 1, column: 12 }],
    }),
    request: () => post('mutation { currentUser { username } }'),
  },
  {
    name: 'a subscription over HTTP (served over WebSocket only)',
    status: 400,
    body: err(
      'Subscriptions are served over WebSocket (graphql-transport-ws) at /api/graphql.',
      'BAD_REQUEST',
    ),
    request: () => post('subscription S { eventCreated(project: "1") { id } }'),
  },
  {
    name: 'a subscription selecting __typename at its root',
    status: 400,
    body: err(
      'Subscription "S" must not select an introspection top level field.',
      'GRAPHQL_VALIDATION_FAILED',
      { locations: [{ line: 1, column: 18 }] },
    ),
    request: () => post('subscription S { __typename }'),
  },
  {
    name: 'a mutation beside the query that is picked: only the query runs',
    status: 200,
    body: { data: { currentUser: null } },
    request: () => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query Q { currentUser { username } } mutation M { __typename }',
        operationName: 'Q',
      }),
    }),
  },
  {
    name: 'operationName "" counts as absent (POST)',
    status: 200,
    body: { data: { currentUser: null } },
    request: () => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{currentUser{username}}', operationName: '' }),
    }),
  },
  {
    name: 'operationName "" counts as absent (GET)',
    status: 200,
    body: { data: { currentUser: null } },
    request: () => ({
      method: 'GET',
      path: `/api/graphql?query=${encodeURIComponent('query A { currentUser { username } }')}&operationName=`,
    }),
  },
  {
    name: 'operationName "" with two operations',
    status: 400,
    body: err(
      'Must provide operation name if query contains multiple operations.',
      'OPERATION_RESOLUTION_FAILURE',
    ),
    request: () => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query A { currentUser { id } } query B { currentUser { id } }',
        operationName: '',
      }),
    }),
  },
  {
    name: 'too deep (anonymous: 15)',
    status: 400,
    body: err('Query has depth of 17, which exceeds max depth of 15', 'QUERY_TOO_DEEP'),
    request: () => post(nested(17)),
  },
  {
    name: 'too complex',
    status: 400,
    body: err(
      'Query has complexity of 20301, which exceeds max complexity of 10000',
      'QUERY_TOO_COMPLEX',
    ),
    request: (t) =>
      post(
        '{ events(first: 100) { nodes { author { events(first: 100) { nodes { databaseId } } } } } }',
        undefined,
        { 'PRIVATE-TOKEN': t.alice },
      ),
  },
  {
    name: 'page size through a variable (an error of the connection alone)',
    status: 200,
    body: {
      errors: [
        {
          message: 'first must be at most 100',
          locations: [{ line: 1, column: 49 }],
          path: ['user', 'events'],
          extensions: { code: 'PAGE_SIZE_EXCEEDED' },
        },
      ],
      data: { user: { username: 'alice', events: null } },
    },
    request: () =>
      post('query Q($n: Int) { user(id: "alice") { username events(first: $n) { totalCount } } }', {
        n: 500,
      }),
  },
  {
    name: 'anonymous viewer events',
    status: 200,
    body: {
      errors: [
        {
          message: '401 Unauthorized',
          locations: [{ line: 1, column: 3 }],
          path: ['events'],
          extensions: { code: 'UNAUTHENTICATED' },
        },
      ],
      data: { events: null },
    },
    request: () => post('{ events { totalCount } }'),
  },
  {
    name: 'anonymous: the viewer events fail alone, the rest is answered',
    status: 200,
    body: {
      errors: [
        {
          message: '401 Unauthorized',
          locations: [{ line: 1, column: 58 }],
          path: ['events'],
          extensions: { code: 'UNAUTHENTICATED' },
        },
      ],
      data: { currentUser: null, project: { fullPath: 'alice/app' }, events: null },
    },
    request: (t) =>
      post(
        `{ currentUser { id } project(idOrPath: "${t.projectId}") { fullPath } events { totalCount } }`,
      ),
  },
  {
    name: 'a bad cursor on user.events keeps the user',
    status: 200,
    body: {
      errors: [
        {
          message: 'after is not a valid cursor',
          locations: [{ line: 1, column: 32 }],
          path: ['user', 'events'],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
      data: { user: { username: 'alice', events: null } },
    },
    request: () => post('{ user(id: "alice") { username events(after: "nope") { totalCount } } }'),
  },
  {
    name: 'first and last together: a field error, the estimate still runs',
    status: 200,
    body: {
      errors: [
        {
          message: 'first and last cannot be combined',
          locations: [{ line: 1, column: 32 }],
          path: ['user', 'events'],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
      data: { user: { username: 'alice', events: null } },
    },
    request: () =>
      post('{ user(id: "alice") { username events(first: 5, last: 5) { totalCount } } }'),
  },
  {
    name: 'a page size over 100 is still priced (at 100) by the gate',
    status: 400,
    body: err(
      'Query has complexity of 20301, which exceeds max complexity of 10000',
      'QUERY_TOO_COMPLEX',
    ),
    request: (t) =>
      post(
        '{ events(first: 500) { nodes { author { events(first: 100) { nodes { databaseId } } } } } }',
        undefined,
        { 'PRIVATE-TOKEN': t.alice },
      ),
  },
  {
    name: 'text/plain body',
    status: 415,
    body: err(
      'Unsupported Content-Type: send the operation as application/json (or use GET).',
      'BAD_REQUEST',
    ),
    request: () => ({ headers: { 'content-type': 'text/plain' }, body: '{ currentUser { id } }' }),
  },
  {
    name: 'read_user token on a project',
    status: 200,
    body: {
      errors: [
        {
          message:
            'The request requires higher privileges than provided by the access token. Accepted scopes: api, read_api.',
          locations: [{ line: 1, column: 3 }],
          path: ['project'],
          extensions: { code: 'FORBIDDEN' },
        },
      ],
      data: { project: null },
    },
    request: (t) =>
      post(`{ project(idOrPath: "${t.projectId}") { id } }`, undefined, {
        'PRIVATE-TOKEN': t.readUser,
      }),
  },
  {
    name: 'read_user token on the viewer',
    status: 200,
    body: { data: { currentUser: { username: 'alice' } } },
    request: (t) =>
      post('{ currentUser { username } }', undefined, { 'PRIVATE-TOKEN': t.readUser }),
  },
  {
    name: 'invalid global id',
    status: 200,
    body: {
      errors: [
        {
          message: '"abc" is not a valid global id',
          locations: [{ line: 1, column: 3 }],
          path: ['node'],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
      data: { node: null },
    },
    request: () => post('{ node(id: "abc") { id } }'),
  },
  {
    name: 'GET with the token in the query string',
    status: 200,
    body: { data: { currentUser: { username: 'alice' } } },
    request: (t) => ({
      method: 'GET',
      path: `/graphql?query=${encodeURIComponent('{ currentUser { username } }')}&private_token=${t.alice}`,
    }),
  },
];

for (const dialect of DIALECTS) {
  describe(`GraphQL errors and limits, both engines alike (${dialect})`, () => {
    const servers: TestServer[] = [];
    before(async () => {
      for (const engine of ENGINES) {
        let seeded: Tokens | undefined;
        const server = await startServer({
          dialect,
          config: { graphqlEngine: engine },
          seed: async (store) => {
            const f = new Fixtures(store);
            const alice = await f.user('alice');
            const bob = await f.user('bob', { state: 'blocked' });
            const project = await f.project('alice/app', alice.id, 'public');
            seeded = {
              alice: await f.token(alice.id, ['read_api']),
              readUser: await f.token(alice.id, ['read_user']),
              expired: await f.token(alice.id, ['api'], { expiresAt: '2026-01-01' }),
              revoked: await f.token(alice.id, ['api'], { revoked: true }),
              blocked: await f.token(bob.id, ['api']),
              projectId: project.id,
            };
          },
        });
        servers.push(server);
        // Tokens differ per database; both servers get the same seed, so keep each server's own.
        (server as TestServer & { tokens?: Tokens }).tokens = seeded!;
      }
    });
    after(async () => {
      for (const server of servers) await server.close();
    });

    for (const c of CASES) {
      it(c.name, async () => {
        const results = [];
        for (const server of servers) {
          const t = (server as TestServer & { tokens: Tokens }).tokens;
          const req = c.request(t);
          const res = await fetch(`${server.url}${req.path ?? '/api/graphql'}`, {
            method: req.method ?? 'POST',
            ...(req.headers ? { headers: req.headers } : {}),
            ...(req.body !== undefined ? { body: req.body } : {}),
          });
          const text = await res.text();
          assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
          assert.doesNotMatch(text, /\bat .*\.(ts|js):\d+/, 'no stack traces');
          results.push({ status: res.status, body: JSON.parse(text) as unknown });
        }
        for (const result of results) assert.deepEqual(result, { status: c.status, body: c.body });
      });
    }
  });
}

describe('HEAD /api/graphql is GET without a body (both engines)', () => {
  for (const engine of ENGINES) {
    it(engine, async () => {
      const server = await startServer({ config: { graphqlEngine: engine } });
      try {
        // HEAD first, each: no kept answer of a GET may stand in for the engine's own.
        for (const query of ['{__typename}', '{ currentUser { id } }']) {
          const path = `/api/graphql?query=${encodeURIComponent(query)}`;
          const head = await fetch(`${server.url}${path}`, { method: 'HEAD' });
          assert.equal(head.status, 200, query);
          assert.equal(head.headers.get('content-type'), 'application/json; charset=utf-8');
          assert.equal(await head.text(), '');
          const get = await fetch(`${server.url}${path}`);
          assert.equal(get.status, 200);
          assert.equal(get.headers.get('content-length'), head.headers.get('content-length'));
        }
        const get = await fetch(
          `${server.url}/api/graphql?query=${encodeURIComponent('{ currentUser { id } }')}`,
        );
        assert.deepEqual(await get.json(), { data: { currentUser: null } });
        // A mutation is refused on HEAD as on GET.
        const mutation = `/api/graphql?query=${encodeURIComponent('mutation { __typename }')}`;
        const refused = await fetch(`${server.url}${mutation}`, { method: 'HEAD' });
        assert.equal(refused.status, 405);
      } finally {
        await server.close();
      }
    });
  }
});
