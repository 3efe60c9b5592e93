import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { call, rawGet } from '../helpers/http.js';
import { type TestServer, startServer } from '../helpers/server.js';

const STYLESHEET = readFileSync(new URL('../../src/web/assets/style.css', import.meta.url), 'utf8');

describe('web assets', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('serves the stylesheet: CSS, cacheable for an hour, never sniffed', async () => {
    const reply = await call(server.url, '/assets/style.css');
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(reply.headers.get('cache-control'), 'public, max-age=3600');
    assert.equal(reply.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(reply.text, STYLESHEET);
    const head = await call(server.url, '/assets/style.css', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/css; charset=utf-8');
  });

  it('serves nothing else under /assets/: no listing, no other file, no way out', async () => {
    for (const path of [
      '/assets/',
      '/assets/nope.css',
      '/assets/../index.ts',
      '/assets/%2e%2e/index.ts',
      '/assets/..%2fsession.ts',
    ]) {
      const reply = await rawGet(server.url, path);
      assert.equal(reply.status, 404, path);
      assert.deepEqual(reply.body, { message: '404 Not Found' }, path);
    }
  });
});
