/**
 * `/graphiql` over HTTP: the page's policy and headers, every asset it names served by this process
 * with its content type and a year of caching, gzip when asked, and nothing off-site. The browser
 * behaviour is in test/e2e/graphiql.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { acceptsGzip } from '../../src/graphql/explorer/assets.js';
import { type TestServer, startServer } from '../helpers/server.js';

const require = createRequire(import.meta.url);
const installed = (pkg: string, file: string) =>
  readFileSync(join(dirname(require.resolve(`${pkg}/package.json`)), file), 'utf8');

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; style-src-attr 'none'; font-src 'self' data:; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const IMMUTABLE = 'public, max-age=31536000, immutable';

describe('/graphiql over HTTP', () => {
  let server: TestServer;
  let html: string;
  let response: Response;

  before(async () => {
    server = await startServer();
    response = await fetch(`${server.url}/graphiql`);
    html = await response.text();
  });
  after(() => server.close());

  /** The asset URLs the page names, in order: its stylesheet, then its scripts. */
  function named(): { css: string[]; js: string[] } {
    return {
      css: [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!),
      js: [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1]!),
    };
  }

  it('serves the page with a strict policy and no inline script', () => {
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(response.headers.get('content-security-policy'), CSP);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    assert.match(html, /<title>GraphiQL · pulsegate<\/title>/);
    assert.match(html, /<div id="graphiql" data-endpoint="\/api\/graphql">/);
    // Every <script> has a src: the policy needs no 'unsafe-inline' for scripts.
    assert.equal(html.match(/<script/g)!.length, 4);
    assert.equal(named().js.length, 4);
    // Nothing is loaded from elsewhere.
    assert.doesNotMatch(html, /(?:src|href)="(?:https?:)?\/\//);
  });

  it('names React, ReactDOM, GraphiQL and our init script by digest, in load order', () => {
    const { css, js } = named();
    assert.equal(css.length, 2);
    assert.match(css[0]!, /^\/graphiql\/assets\/graphiql\.min\.[0-9a-f]{16}\.css$/);
    // The page's own: the site's header above GraphiQL, the panes stacked on a phone.
    assert.match(css[1]!, /^\/graphiql\/assets\/page\.[0-9a-f]{16}\.css$/);
    assert.match(js[0]!, /^\/graphiql\/assets\/react\.production\.min\.[0-9a-f]{16}\.js$/);
    assert.match(js[1]!, /^\/graphiql\/assets\/react-dom\.production\.min\.[0-9a-f]{16}\.js$/);
    assert.match(js[2]!, /^\/graphiql\/assets\/graphiql\.min\.[0-9a-f]{16}\.js$/);
    assert.match(js[3]!, /^\/graphiql\/assets\/init\.[0-9a-f]{16}\.js$/);
  });

  it('serves each asset with its type and a year of caching; the bytes are the installed files', async () => {
    const { css, js } = named();
    const expected = [
      [css[0]!, 'text/css; charset=utf-8', installed('graphiql', 'graphiql.min.css')],
      [js[0]!, 'text/javascript; charset=utf-8', installed('react', 'umd/react.production.min.js')],
      [
        js[1]!,
        'text/javascript; charset=utf-8',
        installed('react-dom', 'umd/react-dom.production.min.js'),
      ],
      [js[2]!, 'text/javascript; charset=utf-8', installed('graphiql', 'graphiql.min.js')],
    ] as const;
    for (const [url, type, file] of expected) {
      const res = await fetch(`${server.url}${url}`, {
        headers: { 'accept-encoding': 'identity' },
      });
      assert.equal(res.status, 200, url);
      assert.equal(res.headers.get('content-type'), type, url);
      assert.equal(res.headers.get('cache-control'), IMMUTABLE, url);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', url);
      assert.equal(res.headers.get('vary'), 'accept-encoding', url);
      assert.equal(res.headers.get('content-encoding'), null, url);
      const body = await res.text();
      // The same bytes, less the bundles' trailing source-map comment (the maps are not served).
      const cut = file.search(/\n(?:\/\/|\/\*)# sourceMappingURL=/);
      if (url.includes('/graphiql.min.')) assert.ok(cut > 0, url);
      assert.equal(body, cut < 0 ? file : `${file.slice(0, cut)}\n`, url);
    }
    const init = await fetch(`${server.url}${js[3]!}`);
    assert.equal(init.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(init.headers.get('cache-control'), IMMUTABLE);
    assert.match(await init.text(), /GraphiQL\.createFetcher\(\{\s*url: endpoint,/);
  });

  it('sends gzip when the client accepts it, and the same bytes unzipped', async () => {
    const url = `${server.url}${named().js[2]!}`;
    const plain = Buffer.from(
      await (await fetch(url, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer(),
    );
    // Node's fetch would decode gzip itself; ask with a raw request to see the encoding.
    const { request } = await import('node:http');
    const zipped = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>(
      (resolve, reject) => {
        request(url, { headers: { 'accept-encoding': 'br;q=1, gzip;q=0.5' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        })
          .on('error', reject)
          .end();
      },
    );
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers['cache-control'], IMMUTABLE);
    assert.ok(zipped.body.length < plain.length / 3, `${zipped.body.length} of ${plain.length}`);
    assert.ok(gunzipSync(zipped.body).equals(plain));
  });

  it('answers an unknown or stale asset name with a JSON 404', async () => {
    for (const path of [
      '/graphiql/assets/graphiql.min.0000000000000000.js',
      '/graphiql/assets/explorer.js',
      '/graphiql/explorer.js',
    ]) {
      const res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get('content-type'), 'application/json', path);
      assert.deepEqual(await res.json(), { message: '404 Not Found' }, path);
    }
  });
});

describe('acceptsGzip', () => {
  it('reads Accept-Encoding as RFC 9110 does', () => {
    const cases: Array<[string | undefined, boolean]> = [
      [undefined, false],
      ['', false],
      ['identity', false],
      ['gzip', true],
      ['GZIP', true],
      ['x-gzip', true],
      ['gzip, deflate, br, zstd', true],
      ['br;q=1.0, gzip;q=0.8, *;q=0.1', true],
      ['gzip;q=0', false],
      ['gzip; q=0.000', false],
      ['*', true],
      ['*;q=0', false],
      ['*, gzip;q=0', false],
      ['gzip;q=0, *', false],
      ['deflate, br', false],
      ['gzip;q=abc', false],
    ];
    for (const [header, expected] of cases) assert.equal(acceptsGzip(header), expected, header);
  });

  it('never throws on any header', () => {
    fc.assert(fc.property(fc.string(), (header) => typeof acceptsGzip(header) === 'boolean'));
  });

  it('follows the weight of gzip among other codings, in any order and spacing', () => {
    const weight = fc.integer({ min: 0, max: 1000 }).map((n) => (n / 1000).toFixed(3));
    const other = fc.record({
      coding: fc.constantFrom('identity', 'br', 'deflate', 'zstd', 'compress'),
      q: fc.option(weight, { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(other, { maxLength: 5 }),
        fc.nat(),
        fc.option(weight, { nil: undefined }),
        fc.constantFrom(',', ', ', ' ,  '),
        (others, at, q, separator) => {
          const parts = others.map((o) => (o.q === undefined ? o.coding : `${o.coding};q=${o.q}`));
          parts.splice(at % (parts.length + 1), 0, q === undefined ? 'gzip' : `gzip; q=${q}`);
          return acceptsGzip(parts.join(separator)) === (q === undefined || Number(q) > 0);
        },
      ),
    );
  });
});
