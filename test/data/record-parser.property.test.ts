import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatRecord } from '../../src/data/record-format.js';
import { RecordError } from '../../src/data/record-errors.js';
import { parseRecordLine } from '../../src/data/record-parser.js';
import { ImportError, ImportService } from '../../src/data/import.js';
import { systemClock } from '../../src/services/clock.js';
import { openStore } from '../../src/store/store.js';
import { createTestDatabase } from '../helpers/server.js';

const KINDS = ['user', 'project', 'member', 'issue', 'event', 'note', 'personal_access_token'];

/** Junk that looks a bit like records: right kinds, wrong or random fields. */
const junkLine = fc.oneof(
  fc.string(),
  fc.json(),
  fc
    .record({
      kind: fc.oneof(fc.constantFrom(...KINDS), fc.string()),
      id: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
      extra: fc.anything(),
    })
    .map((r) => JSON.stringify(r)),
  fc.dictionary(fc.constantFrom('kind', 'id', 'push', 'created_at', 'action'), fc.jsonValue()).map((d) =>
    JSON.stringify({ kind: 'event', ...d }),
  ),
);

describe('record parser (property)', () => {
  it('rejects random junk with a RecordError, never another exception', () => {
    fc.assert(
      fc.property(junkLine, (line) => {
        try {
          parseRecordLine(line);
        } catch (error) {
          assert.ok(error instanceof RecordError, `${String(error)} for ${line}`);
          assert.ok(error.message.length > 0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts every well-formed event and formats it back to the same text', () => {
    const sha = fc.stringMatching(/^[0-9a-f]{40}$/);
    const time = fc
      .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) })
      .map((ms) => new Date(ms).toISOString());
    const commit = fc.record({
      id: sha,
      message: fc.string(),
      timestamp: fc.constant('2026-01-02T10:00:00+00:00'),
      url: fc.webUrl(),
      author: fc.record({ name: fc.string(), email: fc.emailAddress() }),
    });
    const event = fc.record({
      kind: fc.constant('event'),
      id: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      project_id: fc.integer({ min: 1, max: 1000 }),
      author_id: fc.integer({ min: 1, max: 1000 }),
      action: fc.constant('pushed'),
      target_type: fc.constant(null),
      target_id: fc.constant(null),
      created_at: time,
      push: fc.record({
        action: fc.constantFrom('pushed', 'created', 'removed'),
        ref_type: fc.constant('branch'),
        ref: fc.stringMatching(/^refs\/heads\/[a-z][a-z0-9-]{0,20}$/),
        before: sha,
        after: sha,
        commit_count: fc.constant(0),
        commits: fc.array(commit, { maxLength: 3 }),
      }),
    }).map((e) => ({ ...e, push: { ...e.push, commit_count: e.push.commits.length } }));
    fc.assert(
      fc.property(event, (value) => {
        const line = JSON.stringify(value);
        const record = parseRecordLine(line);
        assert.equal(formatRecord(record), line);
      }),
      { numRuns: 500 },
    );
  });

  it('an import of junk lines fails with line numbers and writes nothing', async () => {
    const database = await createTestDatabase('sqlite');
    const store = await openStore(database.url);
    try {
      const importer = new ImportService(store, systemClock);
      await fc.assert(
        fc.asyncProperty(fc.array(junkLine, { minLength: 1, maxLength: 8 }), async (lines) => {
          const clean = lines.map((l) => l.replace(/[\r\n]/g, ' '));
          if (clean.every((l) => l.trim() === '')) return;
          await importer.importText(clean.join('\n')).then(
            () => assert.fail('junk was accepted'),
            (error: unknown) => {
              if (!(error instanceof ImportError)) throw error;
              for (const p of error.problems) {
                assert.ok(p.line >= 1 && p.line <= clean.length);
                assert.notEqual(clean[p.line - 1]!.trim(), '');
              }
            },
          );
        }),
        { numRuns: 150 },
      );
      const n = await store.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(n.n), 0);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
