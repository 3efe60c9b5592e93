import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatRecord } from '../../src/data/record-format.js';
import { RecordError } from '../../src/data/record-errors.js';
import { parseRecordLine } from '../../src/data/record-parser.js';
import { ImportError, ImportService, MAX_PROBLEMS } from '../../src/data/import.js';
import { systemClock } from '../../src/services/clock.js';
import { openStore } from '../../src/store/store.js';
import { createTestDatabase } from '../helpers/server.js';

const KINDS = ['user', 'project', 'member', 'issue', 'event', 'note', 'personal_access_token'];

/** One line of text: no line breaks, not blank (the importer skips blank lines). */
const oneLine = (text: string) => text.replace(/[\r\n]/g, ' ');

/**
 * Lines that are not records, each invalid by construction (not by asking the parser): text that
 * is not JSON, JSON that is not an object, an unknown kind, a known kind with a field no kind has,
 * an event without its project and author.
 */
const junkLine = fc.oneof(
  fc
    .string()
    .map(oneLine)
    .filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return s.trim() !== '';
      }
    }),
  fc
    .jsonValue()
    .filter((v) => v === null || typeof v !== 'object' || Array.isArray(v))
    .map((v) => JSON.stringify(v)),
  fc
    .record({ kind: fc.string().filter((k) => !KINDS.includes(k)), id: fc.integer({ min: 1 }) })
    .map((r) => JSON.stringify(r)),
  fc
    .record({
      kind: fc.constantFrom(...KINDS),
      id: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
      extra: fc.jsonValue(),
    })
    .map((r) => JSON.stringify(r)),
  fc
    .dictionary(fc.constantFrom('kind', 'id', 'push', 'created_at', 'action'), fc.jsonValue())
    .map((d) => JSON.stringify({ ...d, kind: 'event' })),
);

/** A valid user that refers to nothing, so it imports on any line of an empty database. */
const userLine = (n: number) =>
  JSON.stringify({ kind: 'user', id: n, username: `user-${n}`, name: `User ${n}`, email: `user-${n}@example.com` });

/** Junk and valid users, shuffled: which lines are junk is what the tests check. */
const mixedFile = fc.array(fc.option(junkLine, { nil: null, freq: 2 }), { minLength: 1, maxLength: 12 }).map(
  (slots) => slots.map((junk, i) => ({ junk: junk !== null, text: junk ?? userLine(i + 1) })),
);

describe('record parser (property)', () => {
  it('rejects every junk line with a RecordError and parses the valid lines around it', () => {
    fc.assert(
      fc.property(mixedFile, (lines) => {
        for (const { junk, text } of lines) {
          if (!junk) {
            assert.equal(parseRecordLine(text).kind, 'user', text);
            continue;
          }
          assert.throws(
            () => parseRecordLine(text),
            (error: unknown) => error instanceof RecordError && error.message.length > 0,
            `junk was accepted: ${text}`,
          );
        }
      }),
      { numRuns: 1000 },
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

  it('an import of junk among valid lines fails naming exactly the junk lines, and writes nothing', async () => {
    const database = await createTestDatabase('sqlite');
    const store = await openStore(database.url);
    try {
      const importer = new ImportService(store, systemClock);
      await fc.assert(
        fc.asyncProperty(mixedFile, async (lines) => {
          const junk = lines.flatMap((l, i) => (l.junk ? [i + 1] : []));
          const text = lines.map((l) => l.text).join('\n');
          if (junk.length === 0) return;
          await importer.importText(text).then(
            () => assert.fail(`junk was accepted on lines ${junk.join(', ')}`),
            (error: unknown) => {
              if (!(error instanceof ImportError)) throw error;
              assert.deepEqual(
                error.problems.map((p) => p.line),
                junk.slice(0, MAX_PROBLEMS),
              );
              for (const p of error.problems) assert.match(error.message, new RegExp(`^line ${p.line}: .+$`, 'm'));
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
