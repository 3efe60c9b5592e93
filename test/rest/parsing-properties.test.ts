/**
 * Properties of the parsing and re-encoding the REST face relies on, over random input: Link query
 * strings round-trip and are sorted like Rails' to_query, dates parse leniently but never accept
 * an impossible day, and page sizes follow Kaminari's clamps. Parameter rules are checked through
 * the real route (declared schemas + Grape's messages), in process with `inject`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { eventFilterOf, parseDay } from '../../src/domain/filters.js';
import { cgiEscape, normalizeQuery, toQuery } from '../../src/rest/query.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type TestServer, startServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startServer({
    seed: async (store) => {
      const f = new Fixtures(store);
      const owner = await f.user('owner');
      await f.project('acme/api', owner.id, 'public');
    },
  });
});
after(() => server.close());

/** Status and body of `/projects/1/events?<query>`, in process. */
async function events(query: Record<string, string>) {
  const search = new URLSearchParams(query).toString();
  const reply = await server.app.inject({ url: `/api/v4/projects/1/events?${search}` });
  return { status: reply.statusCode, body: reply.json() as unknown, headers: reply.headers };
}

const DAY = 86_400_000;
const key = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !k.endsWith('[]'));

describe('query parameters and Link query strings', () => {
  it('toQuery output parses back to the same parameters', () => {
    fc.assert(
      fc.property(fc.dictionary(key, fc.string({ maxLength: 12 })), (params) => {
        const parsed = [...new URLSearchParams(toQuery(params)).entries()];
        const byKey = (a: [string, string], b: [string, string]) =>
          a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
        assert.deepEqual(parsed.sort(byKey), Object.entries(params).sort(byKey));
      }),
    );
  });

  it('arrays are written as key[] once per value, in order', () => {
    fc.assert(
      fc.property(key, fc.array(fc.string({ maxLength: 6 }), { minLength: 1 }), (k, values) => {
        const parsed = new URLSearchParams(toQuery({ [k]: values }));
        assert.deepEqual(parsed.getAll(`${k}[]`), values);
        assert.equal([...parsed.keys()].length, values.length);
      }),
    );
  });

  it('only unreserved characters and escapes appear; pieces are sorted', () => {
    fc.assert(
      fc.property(fc.dictionary(key, fc.string({ maxLength: 12 })), (params) => {
        const query = toQuery(params);
        assert.match(query, /^[A-Za-z0-9_.\-~%+=&]*$/);
        const pieces = query === '' ? [] : query.split('&');
        assert.deepEqual(pieces, [...pieces].sort());
      }),
    );
  });

  it('CGI.escape leaves exactly A-Za-z0-9_.-~ alone', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (value) => {
        const escaped = cgiEscape(value);
        assert.equal(decodeURIComponent(escaped.replace(/\+/g, ' ')), value);
        for (const ch of value) {
          if (/[A-Za-z0-9_.\-~]/.test(ch)) assert.ok(escaped.includes(ch));
        }
        assert.ok(!/[!'()*]/.test(escaped));
      }),
    );
  });

  it('a repeated plain key keeps its last value; key[] keeps all', () => {
    fc.assert(
      fc.property(key, fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (k, values) => {
        const raw = { [k]: values.length === 1 ? values[0] : values, [`${k}[]`]: values };
        const q = normalizeQuery(raw);
        // `k[]` is written after `k` in `raw`, so it is the array that survives under `k`.
        assert.deepEqual(q[k], values);
        const plain = normalizeQuery({ [k]: values.length === 1 ? values[0] : values });
        assert.equal(plain[k], values[values.length - 1]);
      }),
    );
  });
});

describe('dates', () => {
  const day = fc.date({
    min: new Date(Date.UTC(1000, 0, 1)),
    max: new Date(Date.UTC(9999, 11, 31)),
    noInvalidDate: true,
  });

  it('any real day parses to its UTC midnight, with or without a time of day', () => {
    fc.assert(
      fc.property(day, (d) => {
        const iso = d.toISOString();
        const midnight = Math.floor(d.getTime() / DAY) * DAY;
        assert.equal(parseDay(iso.slice(0, 10)), midnight);
        assert.equal(parseDay(iso), midnight);
        assert.equal(parseDay(iso.replace('T', ' ').replace('Z', '+02:00')), midnight);
      }),
    );
  });

  it('impossible days are rejected', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 9999 }),
        fc.integer({ min: 1, max: 99 }),
        fc.integer({ min: 1, max: 99 }),
        (y, m, d) => {
          const text = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
          const real = new Date(Date.UTC(y, m - 1, d));
          const valid = m <= 12 && real.getUTCMonth() === m - 1 && real.getUTCDate() === d;
          assert.equal(parseDay(text) !== null, valid, text);
        },
      ),
    );
  });

  it('both bounds exclude the named day', () => {
    fc.assert(
      fc.property(day, (d) => {
        const text = d.toISOString().slice(0, 10);
        const filter = eventFilterOf({ before: text, after: text });
        const midnight = Math.floor(d.getTime() / DAY) * DAY;
        assert.equal(filter.createdBefore, midnight);
        assert.equal(filter.createdFrom, midnight + DAY);
      }),
    );
  });

  it('the route answers "before is invalid" exactly when the day does not parse', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 30 }),
          day.map((d) => d.toISOString()),
        ),
        async (value) => {
          const reply = await events({ before: value });
          if (value === '' || parseDay(value) !== null) assert.equal(reply.status, 200, value);
          else {
            assert.equal(reply.status, 400, value);
            assert.deepEqual(reply.body, { error: 'before is invalid' });
          }
        },
      ),
    );
  });
});

describe('page and per_page', () => {
  it('per_page: 0 is refused, negatives mean 20, the rest clamps to 100', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1_000_000, max: 1_000_000 }), async (n) => {
        const reply = await events({ per_page: String(n) });
        if (n === 0) {
          assert.equal(reply.status, 400);
          assert.deepEqual(reply.body, { error: 'per_page has a value not allowed' });
          return;
        }
        assert.equal(reply.status, 200);
        assert.equal(reply.headers['x-per-page'], String(n < 0 ? 20 : Math.min(n, 100)));
      }),
      { numRuns: 60 },
    );
  });

  it('page: anything not above 1 is 1', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1_000_000, max: 1_000_000 }), async (n) => {
        const reply = await events({ page: String(n) });
        assert.equal(reply.status, 200);
        assert.equal(reply.headers['x-page'], String(Math.max(n, 1)));
      }),
      { numRuns: 60 },
    );
  });

  it('non-integers are "is invalid", both named in declaration order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 10 }).filter((s) => !/^[+-]?\d+$/.test(s)),
        async (value) => {
          const reply = await events({ page: value, per_page: value });
          assert.equal(reply.status, 400);
          assert.deepEqual(reply.body, { error: 'page is invalid, per_page is invalid' });
        },
      ),
      { numRuns: 60 },
    );
  });
});
