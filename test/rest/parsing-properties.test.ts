/**
 * Properties of the parsing and re-encoding the REST face relies on, over random input: Link query
 * strings round-trip and are sorted like Rails' to_query, dates parse leniently but never accept
 * an impossible day, and page sizes follow Kaminari's clamps.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ValidationError } from '../../src/domain/errors.js';
import { parseDay, parseEventFilter } from '../../src/domain/filters.js';
import { parseOffsetPage } from '../../src/domain/pagination.js';
import { cgiEscape, normalizeQuery, toQuery } from '../../src/rest/query.js';

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
        const filter = parseEventFilter({ before: text, after: text });
        const midnight = Math.floor(d.getTime() / DAY) * DAY;
        assert.equal(filter.createdBefore, midnight);
        assert.equal(filter.createdFrom, midnight + DAY);
      }),
    );
  });

  it('garbage is "is invalid", never a crash', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (value) => {
        try {
          parseEventFilter({ before: value });
        } catch (error) {
          assert.ok(error instanceof ValidationError);
          assert.deepEqual(error.messages, ['before is invalid']);
        }
      }),
    );
  });
});

describe('page and per_page', () => {
  it('per_page: 0 is refused, negatives mean 20, the rest clamps to 100', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }), (n) => {
        if (n === 0) {
          assert.throws(
            () => parseOffsetPage({ per_page: '0' }),
            /per_page has a value not allowed/,
          );
          return;
        }
        const { perPage } = parseOffsetPage({ per_page: String(n) });
        assert.equal(perPage, n < 0 ? 20 : Math.min(n, 100));
      }),
    );
  });

  it('page: anything not above 1 is 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }), (n) => {
        assert.equal(parseOffsetPage({ page: String(n) }).page, Math.max(n, 1));
      }),
    );
  });

  it('non-integers are "is invalid"', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 10 }).filter((s) => !/^[+-]?\d+$/.test(s)),
        (value) => {
          assert.throws(
            () => parseOffsetPage({ page: value, per_page: value }),
            (error: unknown) => {
              assert.ok(error instanceof ValidationError);
              assert.deepEqual(error.messages, ['page is invalid', 'per_page is invalid']);
              return true;
            },
          );
        },
      ),
    );
  });
});
