/**
 * CORS for browser apps holding a token: `/api/v4/*` and `/api/graphql` answer preflights
 * (cached, token headers allowed, never credentials) and expose the pagination headers; the OAuth
 * endpoints keep their own rules and HTML pages get none. Allowed origins are configurable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type TestServer, startServer } from '../helpers/server.js';
import { ENGINES } from './client.js';

const APP = 'https://app.example.com';

function preflight(url: string, origin = APP) {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'private-token, content-type',
    },
  });
}

const corsOf = (res: Response) =>
  Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('access-control-')));

for (const engine of ENGINES) {
  describe(`CORS, any origin by default (${engine})`, () => {
    let server: TestServer;
    let token: string;
    before(async () => {
      server = await startServer({
        config: { graphqlEngine: engine },
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice');
          await f.project('alice/app', alice.id, 'public');
          token = await f.token(alice.id, ['read_api']);
        },
      });
    });
    after(() => server.close());

    for (const path of ['/api/graphql', '/graphql', '/api/v4/projects']) {
      it(`answers and caches preflights on ${path}, without credentials`, async () => {
        const res = await preflight(`${server.url}${path}`);
        assert.equal(res.status, 204);
        assert.equal(await res.text(), '');
        const methods = path.includes('graphql')
          ? 'GET, HEAD, POST'
          : 'GET, HEAD, POST, PUT, PATCH, DELETE';
        assert.deepEqual(corsOf(res), {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': methods,
          'access-control-allow-headers': 'Authorization, PRIVATE-TOKEN, Content-Type',
          'access-control-expose-headers':
            'Link, X-Total, X-Total-Pages, X-Page, X-Per-Page, X-Next-Page, X-Prev-Page, Retry-After',
          'access-control-max-age': '7200',
        });
      });
    }

    it('marks answers with a token in a header readable, pagination headers exposed', async () => {
      const rest = await fetch(`${server.url}/api/v4/projects/alice%2Fapp/events?per_page=1`, {
        headers: { origin: APP, 'private-token': token },
      });
      assert.equal(rest.status, 200);
      assert.equal(rest.headers.get('access-control-allow-origin'), '*');
      assert.equal(rest.headers.get('access-control-allow-credentials'), null);
      assert.match(rest.headers.get('access-control-expose-headers')!, /\bLink\b.*\bX-Total\b/);
      assert.ok(rest.headers.get('x-total'));

      const gql = await fetch(`${server.url}/api/graphql`, {
        method: 'POST',
        headers: { origin: APP, 'private-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ currentUser { username } }' }),
      });
      assert.equal(gql.status, 200);
      assert.equal(gql.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(await gql.json(), { data: { currentUser: { username: 'alice' } } });
    });

    it('leaves OAuth endpoints to their own rules and HTML pages without CORS', async () => {
      const oauth = await preflight(`${server.url}/oauth/token`);
      assert.equal(
        oauth.headers.get('access-control-allow-headers'),
        'Authorization, Content-Type, Accept',
      );
      assert.equal(oauth.headers.get('access-control-max-age'), '600');

      const page = await fetch(`${server.url}/users/sign_in`, { headers: { origin: APP } });
      assert.equal(page.status, 200);
      assert.deepEqual(corsOf(page), {});
      const pagePreflight = await preflight(`${server.url}/users/sign_in`);
      assert.deepEqual(corsOf(pagePreflight), {});
      assert.notEqual(pagePreflight.status, 204);
    });
  });
}

describe('CORS with configured origins', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({
      config: { corsOrigins: [APP, 'http://localhost:5173'] },
    });
  });
  after(() => server.close());

  it('reflects an allowed origin and refuses others', async () => {
    for (const path of ['/api/graphql', '/api/v4/projects']) {
      const ok = await preflight(`${server.url}${path}`);
      assert.equal(ok.status, 204);
      assert.equal(ok.headers.get('access-control-allow-origin'), APP);
      assert.match(ok.headers.get('vary') ?? '', /Origin/);
      assert.equal(ok.headers.get('access-control-allow-credentials'), null);

      const other = await preflight(`${server.url}${path}`, 'https://evil.example');
      assert.equal(other.headers.get('access-control-allow-origin'), null);
    }
  });
});

describe('PULSEGATE_CORS_ORIGINS', () => {
  it('is * by default, a trimmed list of origins otherwise, and refuses paths', () => {
    assert.deepEqual(loadConfig({}, {}).corsOrigins, ['*']);
    assert.deepEqual(
      loadConfig({}, { PULSEGATE_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' })
        .corsOrigins,
      ['https://app.example.com', 'http://localhost:5173'],
    );
    for (const bad of ['https://app.example.com/', 'app.example.com', ' , '])
      assert.throws(() => loadConfig({}, { PULSEGATE_CORS_ORIGINS: bad }), ConfigError, bad);
  });
});
