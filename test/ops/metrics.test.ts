import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { type Catalog, seedCatalog } from '../helpers/catalog.js';
import { call } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(server: TestServer): Promise<string> {
  const res = await call(server.url, '/-/metrics');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return res.text;
}

for (const dialect of DIALECTS) {
  describe(`/-/metrics (${dialect})`, () => {
    let server: TestServer;
    let catalog: Catalog;
    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          catalog = await seedCatalog(store);
        },
      });
    });
    after(() => server.close());

    it('counts requests by route pattern and status, never by raw URL', async () => {
      for (const id of [String(catalog.ownerId), 'alice', 'nobody-here']) {
        await call(server.url, `/api/v4/users/${id}/events?per_page=1`);
      }
      await call(server.url, '/no/such/page/123');
      const text = await scrape(server);
      const users = 'method="GET",route="/api/v4/users/:id/events"';
      assert.equal(sample(text, `pulsegate_http_requests_total{${users},status="200"}`), 2);
      assert.equal(sample(text, `pulsegate_http_requests_total{${users},status="404"}`), 1);
      assert.equal(
        sample(
          text,
          'pulsegate_http_requests_total{method="GET",route="(unmatched)",status="404"}',
        ),
        1,
      );
      assert.equal(
        sample(text, `pulsegate_http_request_duration_seconds_count{${users},status="200"}`),
        2,
      );
      assert.ok(
        sample(
          text,
          `pulsegate_http_request_duration_seconds_bucket{le="+Inf",${users},status="200"}`,
        ) === 2,
        text,
      );
      assert.doesNotMatch(text, /users\/(\d|alice)|nobody-here|no\/such|per_page/);
    });

    it('reports the page and result caches: hits and misses (REST pages on both dialects; whole GraphQL results on SQLite only)', async () => {
      const before = await scrape(server);
      const headers = { 'PRIVATE-TOKEN': catalog.ownerToken };
      const path = `/api/v4/projects/${catalog.projectId}/events?per_page=2`;
      assert.equal((await call(server.url, path, { headers })).status, 200);
      assert.equal((await call(server.url, path, { headers })).status, 200);
      const query = JSON.stringify({ query: '{ currentUser { username } }' });
      const gql = { ...headers, 'content-type': 'application/json' };
      for (let i = 0; i < 3; i++) {
        const res = await call(server.url, '/api/graphql', {
          method: 'POST',
          headers: gql,
          body: query,
        });
        assert.equal(res.status, 200);
      }
      const text = await scrape(server);
      const lookups = (cache: string, result: string) => {
        const series = `pulsegate_cache_lookups_total{cache="${cache}",result="${result}"}`;
        return sample(text, series)! - sample(before, series)!;
      };
      // REST pages follow the event log on both dialects (docs/listing-caches.md). The second
      // request is the response kept under its version tag where the version is settled (always
      // on SQLite; on PostgreSQL seconds after the last write), else the cached page.
      assert.equal(lookups('rest_page', 'miss'), 1);
      assert.equal(lookups('rest_page', 'hit') + lookups('response', 'hit'), 1);
      if (dialect === 'sqlite') {
        assert.equal(lookups('response', 'miss'), 1);
        assert.equal(lookups('response', 'hit'), 1);
      }
      // GraphQL answers are kept under their reads' marks on both dialects.
      assert.equal(lookups('graphql_result', 'miss'), 1);
      assert.equal(lookups('graphql_result', 'hit'), 2);
    });

    it('reports the database connections and the newest event id', async () => {
      const text = await scrape(server);
      if (dialect === 'sqlite') {
        assert.equal(sample(text, 'pulsegate_db_pool_connections{state="total"}'), 1);
        assert.equal(sample(text, 'pulsegate_db_pool_connections{state="max"}'), undefined);
      } else {
        // Ten for walks and writes, four for prepared reads (store/database.ts `prepared`).
        assert.equal(sample(text, 'pulsegate_db_pool_connections{state="max"}'), 14);
        assert.ok(sample(text, 'pulsegate_db_pool_connections{state="total"}')! >= 1, text);
        assert.equal(sample(text, 'pulsegate_db_pool_connections{state="waiting"}'), 0);
      }
      const newest = Math.max(...catalog.events.map((e) => e.id));
      assert.equal(sample(text, 'pulsegate_events_newest_id'), newest);
    });
  });
}

describe('/-/metrics is only for PULSEGATE_METRICS_ALLOW', () => {
  it('answers 404 to an address outside the list', async () => {
    const server = await startServer({ config: { metricsAllow: ['10.0.0.0/8', '::1'] } });
    try {
      const res = await call(server.url, '/-/metrics');
      assert.equal(res.status, 404);
      assert.equal(res.text, '{"message":"404 Not Found"}');
    } finally {
      await server.close();
    }
  });

  it('answers 200 to an address inside a listed block', async () => {
    const server = await startServer({ config: { metricsAllow: ['10.0.0.0/8', '127.0.0.0/8'] } });
    try {
      assert.equal((await call(server.url, '/-/metrics')).status, 200);
    } finally {
      await server.close();
    }
  });

  it('answers 503 in the API shape when the scrape cannot be gathered (a worker did not answer)', async () => {
    const server = await startServer();
    try {
      server.services.metrics.gatherWith(() =>
        Promise.reject(new Error('the primary did not answer with the workers’ metrics')),
      );
      const res = await call(server.url, '/-/metrics');
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.text, '{"message":"503 Service Unavailable"}');
    } finally {
      await server.close();
    }
  });

  it('defaults to loopback and refuses entries that are not addresses or blocks', () => {
    assert.deepEqual(loadConfig({}, {}).metricsAllow, ['127.0.0.1', '::1']);
    assert.deepEqual(
      loadConfig({}, { PULSEGATE_METRICS_ALLOW: ' 192.0.2.0/24, 2001:db8::/32 ,' }).metricsAllow,
      ['192.0.2.0/24', '2001:db8::/32'],
    );
    for (const bad of ['localhost', '10.0.0.0/33', '10.0.0.1/8/1', '::1/129']) {
      assert.throws(
        () => loadConfig({}, { PULSEGATE_METRICS_ALLOW: bad }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message ===
            `PULSEGATE_METRICS_ALLOW must list IP addresses or CIDR blocks, comma-separated: ${bad}`,
      );
    }
  });
});
