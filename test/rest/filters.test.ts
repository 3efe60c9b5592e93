/**
 * Filters on every events endpoint: each action and target_type value, Grape's exact 400 bodies
 * (case-sensitive values, several errors joined in GitLab's order), exclusive day bounds, lenient
 * dates, ordering by id, unknown parameters ignored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACTIONS } from '../../src/domain/vocabulary.js';
import { type Catalog, expectedIds, seedCatalog } from '../helpers/catalog.js';
import { get, ids, pagination } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const TARGET_KEYS: Record<string, string> = {
  issue: 'Issue',
  milestone: 'Milestone',
  merge_request: 'MergeRequest',
  note: 'Note',
  project: 'Project',
  snippet: 'Snippet',
  user: 'User',
  wiki: 'WikiPage::Meta',
  design: 'DesignManagement::Design',
};

const DAY = (d: string) => Date.parse(`${d}T00:00:00.000Z`);
const NEXT_DAY = (d: string) => DAY(d) + 86_400_000;

for (const dialect of DIALECTS) {
  describe(`event filters (${dialect})`, () => {
    let server: TestServer;
    let catalog: Catalog;
    let endpoints: string[];

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          catalog = await seedCatalog(store);
        },
      });
      endpoints = [
        '/api/v4/events',
        '/api/v4/users/alice/events',
        `/api/v4/projects/${catalog.projectId}/events`,
        `/api/v4/${catalog.projectId}/events`,
      ];
    });
    after(() => server.close());

    const list = (path: string) => get(server.url, path, catalog.ownerToken);

    it('every action value returns exactly the events with that action', async () => {
      for (const action of ACTIONS) {
        const want = expectedIds(catalog.events, (e) => e.action === action);
        for (const endpoint of endpoints) {
          const res = await list(`${endpoint}?action=${action}&per_page=100`);
          assert.equal(res.status, 200, `${endpoint} action=${action}`);
          assert.deepEqual(ids(res.body), want, `${endpoint} action=${action}`);
          assert.equal(res.headers.get('x-total'), String(want.length));
        }
      }
    });

    it('every action value is present in the catalog (the test covers them all)', () => {
      for (const action of ACTIONS) {
        assert.ok(
          catalog.events.some((e) => e.action === action),
          `no ${action} event in the catalog`,
        );
      }
    });

    it('every target_type value returns exactly the events of that stored class', async () => {
      for (const [key, cls] of Object.entries(TARGET_KEYS)) {
        const want = expectedIds(catalog.events, (e) => e.targetType === cls);
        assert.ok(want.length > 0, `no ${cls} event in the catalog`);
        for (const endpoint of endpoints) {
          const res = await list(`${endpoint}?target_type=${key}&per_page=100`);
          assert.equal(res.status, 200, `${endpoint} target_type=${key}`);
          assert.deepEqual(ids(res.body), want, `${endpoint} target_type=${key}`);
          for (const event of res.body as Array<{ target_type: string }>) {
            assert.equal(event.target_type, cls);
          }
        }
      }
    });

    it('action and target_type combine', async () => {
      const want = expectedIds(
        catalog.events,
        (e) => e.action === 'created' && e.targetType === 'MergeRequest',
      );
      const res = await list(`/api/v4/events?action=created&target_type=merge_request`);
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res.body), want);
      assert.equal(want.length, 1);
    });

    it('values are case-sensitive lower case, with Grape bodies', async () => {
      const cases: Array<[string, string]> = [
        ['action=Created', 'action does not have a valid value'],
        ['action=PUSHED', 'action does not have a valid value'],
        ['action=accepted', 'action does not have a valid value'],
        ['target_type=Issue', 'target_type does not have a valid value'],
        ['target_type=MergeRequest', 'target_type does not have a valid value'],
        ['target_type=epic', 'target_type does not have a valid value'],
        ['sort=ASC', 'sort does not have a valid value'],
        ['sort=created_at', 'sort does not have a valid value'],
      ];
      for (const endpoint of endpoints) {
        for (const [query, message] of cases) {
          const res = await list(`${endpoint}?${query}`);
          assert.equal(res.status, 400, `${endpoint}?${query}`);
          assert.equal(res.headers.get('content-type'), 'application/json');
          assert.equal(res.text, JSON.stringify({ error: message }));
        }
      }
    });

    it('several bad parameters give one 400 in GitLab order, whatever the query order', async () => {
      const res = await list(
        '/api/v4/events?sort=sideways&after=soon&before=later&target_type=Wiki&action=Pushed&per_page=ten&page=one',
      );
      assert.equal(res.status, 400);
      assert.equal(
        res.text,
        JSON.stringify({
          error:
            'page is invalid, per_page is invalid, action does not have a valid value, ' +
            'target_type does not have a valid value, before is invalid, after is invalid, ' +
            'sort does not have a valid value',
        }),
      );
      const zero = await list(
        `/api/v4/projects/${catalog.projectId}/events?action=nope&per_page=0`,
      );
      assert.equal(zero.status, 400);
      assert.equal(
        zero.text,
        '{"error":"per_page has a value not allowed, action does not have a valid value"}',
      );
    });

    it('a repeated plain parameter keeps its last value, as Rack does', async () => {
      const res = await list('/api/v4/events?action=pushed&action=joined&per_page=100');
      assert.equal(res.status, 200);
      assert.deepEqual(
        ids(res.body),
        expectedIds(catalog.events, (e) => e.action === 'joined'),
      );
      const bad = await list('/api/v4/events?action=joined&action=Pushed');
      assert.equal(bad.status, 400);
      assert.equal(bad.text, '{"error":"action does not have a valid value"}');
      const dates = await list('/api/v4/events?before=nonsense&before=2026-01-02&per_page=100');
      assert.equal(dates.status, 200);
      assert.deepEqual(
        ids(dates.body),
        expectedIds(catalog.events, (e) => e.createdAt < DAY('2026-01-02')),
      );
      // `key[]` is an array in Rack, which fails Grape's String coercion.
      const array = await list('/api/v4/events?action[]=pushed&target_type[]=issue&sort[]=asc');
      assert.equal(array.status, 400);
      assert.equal(
        array.text,
        '{"error":"action is invalid, target_type is invalid, sort is invalid"}',
      );
    });

    it('after=D excludes all of day D; before=D excludes all of day D', async () => {
      for (const endpoint of endpoints) {
        const afterRes = await list(`${endpoint}?after=2026-01-02&per_page=100`);
        assert.equal(afterRes.status, 200);
        // 2026-01-02T23:59:59.999Z is out, 2026-01-03T00:00:00.000Z is in.
        assert.deepEqual(
          ids(afterRes.body),
          expectedIds(catalog.events, (e) => e.createdAt >= NEXT_DAY('2026-01-02')),
        );
        const beforeRes = await list(`${endpoint}?before=2026-01-02&per_page=100`);
        // 2026-01-02T00:00:00.000Z is out, 2026-01-01T10:00Z and the 2025 event are in.
        assert.deepEqual(
          ids(beforeRes.body),
          expectedIds(catalog.events, (e) => e.createdAt < DAY('2026-01-02')),
        );
      }
      const range = await list(`/api/v4/events?after=2026-01-01&before=2026-01-04&per_page=100`);
      const want = expectedIds(
        catalog.events,
        (e) => e.createdAt >= DAY('2026-01-02') && e.createdAt < DAY('2026-01-04'),
      );
      assert.equal(want.length, 4);
      assert.deepEqual(ids(range.body), want);
    });

    it('after=D&before=D is always empty', async () => {
      for (const endpoint of endpoints) {
        for (const day of ['2026-01-02', '2026-01-05', '2030-01-01']) {
          const res = await list(`${endpoint}?after=${day}&before=${day}`);
          assert.equal(res.status, 200);
          assert.equal(res.text, '[]');
          assert.equal(res.headers.get('x-total'), '0');
          assert.equal(res.headers.get('x-total-pages'), '1');
        }
      }
    });

    it('an ISO datetime is accepted and its time of day discarded', async () => {
      const plain = await list('/api/v4/events?after=2026-01-02&per_page=100');
      for (const value of [
        '2026-01-02T23:00:00Z',
        '2026-01-02T00:00:00.000Z',
        '2026-01-02T05:06:07',
        '2026-01-02%2012:00:00',
      ]) {
        const res = await list(`/api/v4/events?after=${value}&per_page=100`);
        assert.equal(res.status, 200, value);
        assert.deepEqual(ids(res.body), ids(plain.body), value);
      }
      const beforePlain = await list('/api/v4/events?before=2026-01-03&per_page=100');
      const beforeIso = await list('/api/v4/events?before=2026-01-03T22:00:00Z&per_page=100');
      assert.deepEqual(ids(beforeIso.body), ids(beforePlain.body));
    });

    it('impossible or malformed dates are 400', async () => {
      const cases: Array<[string, string]> = [
        ['before=2026-02-30', 'before is invalid'],
        ['after=2024-13-45', 'after is invalid'],
        ['after=2023-02-29', 'after is invalid'],
        ['before=yesterday', 'before is invalid'],
        ['before=2026-1-2x', 'before is invalid'],
      ];
      for (const [query, message] of cases) {
        const res = await list(`/api/v4/users/alice/events?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.text, JSON.stringify({ error: message }));
      }
      // A real leap day is fine.
      const leap = await list('/api/v4/events?after=2024-02-29');
      assert.equal(leap.status, 200);
    });

    it('orders by id: desc by default and for sort=desc, asc for sort=asc', async () => {
      for (const endpoint of endpoints) {
        const byDefault = await list(`${endpoint}?per_page=100`);
        const desc = await list(`${endpoint}?sort=desc&per_page=100`);
        const asc = await list(`${endpoint}?sort=asc&per_page=100`);
        const all = expectedIds(catalog.events, () => true, 'asc');
        assert.deepEqual(ids(asc.body), all);
        assert.deepEqual(ids(desc.body), [...all].reverse());
        assert.deepEqual(ids(byDefault.body), [...all].reverse());
        // The newest id is the oldest event by time: ordering is by id, not created_at.
        const first = (byDefault.body as Array<{ created_at: string }>)[0]!;
        assert.equal(first.created_at, '2025-12-31T23:00:00.000Z');
      }
    });

    it('unknown parameters are ignored, an empty query string is accepted', async () => {
      const plain = await list('/api/v4/events');
      for (const query of [
        '?',
        '?all=False',
        '?pagination=keyset&order_by=created_at',
        '?foo=bar&foo=baz',
        '?scope=mine',
        '?statistics=true&with_custom_attributes[x]=1',
      ]) {
        const res = await list(`/api/v4/events${query}`);
        assert.equal(res.status, 200, query);
        assert.deepEqual(ids(res.body), ids(plain.body), query);
        assert.deepEqual(pagination(res.headers), pagination(plain.headers), query);
      }
      const project = await list(`/api/v4/projects/${catalog.projectId}/events?`);
      assert.equal(project.status, 200);
    });

    it('an empty filter value counts as omitted', async () => {
      const plain = await list('/api/v4/events?per_page=100');
      const res = await list('/api/v4/events?action=&target_type=&before=&after=&per_page=100');
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res.body), ids(plain.body));
    });
  });
}
