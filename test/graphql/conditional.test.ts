/**
 * Conditional GET queries on /api/graphql (both engines): a strong ETag on successful queries, 304
 * while nothing changed, a new tag after a write, tags that differ by token scopes, and no tag on a
 * response carrying errors.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { ENGINES } from './client.js';

const QUERY = '{ project(idOrPath: "acme/api") { events(first: 5) { nodes { databaseId } } } }';

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`conditional GET /api/graphql (${engine}, ${dialect})`, () => {
      let server: TestServer;
      let f: Fixtures;
      const ids = { alice: 0, api: 0 };
      const tokens = { api: '', readUser: '' };

      before(async () => {
        server = await startServer({
          dialect,
          config: { graphqlEngine: engine },
          seed: async (store) => {
            f = new Fixtures(store);
            const alice = await f.user('alice');
            ids.alice = alice.id;
            ids.api = (await f.project('acme/api', alice.id, 'public')).id;
            await f.member(ids.api, alice.id, ACCESS_LEVELS.owner);
            await f.event({
              projectId: ids.api,
              authorId: alice.id,
              action: 'created',
              createdAt: 1,
            });
            tokens.api = await f.token(alice.id, ['api']);
            tokens.readUser = await f.token(alice.id, ['read_user']);
          },
        });
        f = new Fixtures(server.store);
      });
      after(() => server.close());

      const get = (query: string, headers: Record<string, string> = {}) =>
        fetch(`${server.url}/api/graphql?${new URLSearchParams({ query })}`, { headers });

      async function tagOf(query: string, headers: Record<string, string> = {}) {
        const response = await get(query, headers);
        assert.equal(response.status, 200);
        const tag = response.headers.get('etag');
        assert.match(tag ?? '', /^"[A-Za-z0-9_-]{32}"$/);
        return { tag: tag!, body: await response.text() };
      }

      it('304 while unchanged; 200 with a new tag and the new event after a write', async () => {
        const auth = { 'private-token': tokens.api };
        const { tag, body } = await tagOf(QUERY, auth);
        const same = await get(QUERY, { ...auth, 'if-none-match': tag });
        assert.equal(same.status, 304);
        assert.equal(await same.text(), '');
        const event = await f.event({
          projectId: ids.api,
          authorId: ids.alice,
          action: 'closed',
          createdAt: 2,
        });
        const changed = await get(QUERY, { ...auth, 'if-none-match': tag });
        assert.equal(changed.status, 200);
        assert.notEqual(changed.headers.get('etag'), tag);
        const text = await changed.text();
        assert.notEqual(text, body);
        assert.ok(text.includes(`"databaseId":${event.id}`));
      });

      it('tags differ by token scopes: a read_user token gets a field error, untagged', async () => {
        const full = await tagOf(QUERY, { 'private-token': tokens.api });
        const narrow = await get(QUERY, {
          'private-token': tokens.readUser,
          'if-none-match': full.tag,
        });
        assert.equal(narrow.status, 200);
        const body = (await narrow.json()) as { errors?: unknown[] };
        assert.ok(body.errors && body.errors.length > 0);
        assert.equal(narrow.headers.get('etag'), null);
      });

      it('mutations and POST are never tagged', async () => {
        const post = await fetch(`${server.url}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: QUERY }),
        });
        assert.equal(post.status, 200);
        assert.equal(post.headers.get('etag'), null);
      });
    });
  }
}
