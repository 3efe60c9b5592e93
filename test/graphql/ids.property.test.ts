/**
 * The ranges of GraphQL ids and cursors, and of PostgreSQL's int8 as the store reads it, as
 * properties: 64-bit kinds (events, issues, merge requests, notes, cursors) round-trip every id up
 * to 2^53 − 1 and refuse the rest; 32-bit kinds keep refusing past 2^31 − 1.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  type NodeTypeName,
  decodeCursor,
  encodeCursor,
  fromGlobalId,
  toGlobalId,
} from '../../src/graphql/ids.js';
import { int8 } from '../../src/store/database.js';

const BIG: NodeTypeName[] = ['Event', 'Issue', 'MergeRequest', 'Note'];
const SMALL: NodeTypeName[] = ['User', 'Project', 'Milestone', 'Snippet'];
const MAX = Number.MAX_SAFE_INTEGER;

describe('id ranges', () => {
  it('64-bit kinds and cursors take every id from 1 to 2^53 − 1, and nothing past it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...BIG),
        fc.oneof(
          fc.integer({ min: 1, max: 2 ** 31 + 10 }),
          fc.integer({ min: 2 ** 31 - 10, max: MAX }),
          fc.constantFrom(2 ** 31 - 1, 2 ** 31, MAX),
        ),
        (type, id) => {
          assert.deepEqual(fromGlobalId(toGlobalId(type, id)), { type, id });
          assert.deepEqual(fromGlobalId(`gid://gitlab/${type}/${id}`), { type, id });
          assert.equal(decodeCursor(encodeCursor(id)), id);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...BIG),
        fc.bigInt({ min: BigInt(MAX) + 1n, max: 10n ** 16n - 1n }),
        (type, id) => {
          assert.equal(fromGlobalId(`gid://gitlab/${type}/${id}`), null);
          assert.equal(fromGlobalId(toGlobalId(type, Number(id))), null);
          assert.equal(decodeCursor(encodeCursor(Number(id))), null);
        },
      ),
    );
  });

  it('32-bit kinds take ids up to 2^31 − 1 only', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SMALL), fc.integer({ min: 1, max: MAX }), (type, id) => {
        const expected = id <= 2 ** 31 - 1 ? { type, id } : null;
        assert.deepEqual(fromGlobalId(toGlobalId(type, id)), expected);
      }),
    );
  });

  it('reads int8 exactly up to ±(2^53 − 1) and refuses what it would round', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (value) => {
        const text = value.toString();
        if (value >= -BigInt(MAX) && value <= BigInt(MAX)) assert.equal(int8(text), Number(value));
        else assert.throws(() => int8(text), RangeError);
      }),
    );
  });
});
