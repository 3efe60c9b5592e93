/**
 * The starred and followed listings walk indexes (issue 33): EXPLAIN QUERY PLAN on SQLite and
 * EXPLAIN on PostgreSQL (sequential scans off, so one shows only where no index can serve), for
 * every filter, counts, pages and keyset windows. Where the set's events are a small share of the
 * log, they search the events once per starred project or followed user (a merge of per-source
 * walks, not a scan of the log); where they are most of it, one walk of the log in id order that
 * stops at the page (never a sort of the set's events).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventFilter } from '../../src/domain/filters.js';
import type { Action } from '../../src/domain/vocabulary.js';
import type { EventQuery, EventWindow } from '../../src/store/events.js';
import { insertEvents } from '../helpers/bulk.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

/** Events outside both sets: enough that the sets' share is below social.ts's JOINED_MIN_SHARE. */
const OTHERS = 30_000;

for (const dialect of DIALECTS) {
  for (const sparse of [true, false]) {
    describe(`starred and followed listing plans use indexes (${dialect}, ${sparse ? 'a small share of the log' : 'most of the log'})`, () => {
      let server: TestServer;
      let readerId: number;
      const projects: Array<{ projectId: number; visibility: string; accessLevel: number | null }> =
        [];
      const authors: number[] = [];
      let head = 0;

      before(async () => {
        server = await startServer({ dialect });
        const f = new Fixtures(server.store);
        readerId = (await f.user('reader')).id;
        for (let i = 0; i < 8; i++) authors.push((await f.user(`dev${i}`)).id);
        for (const [i, visibility] of (['public', 'internal', 'private'] as const).entries()) {
          const id = (await f.project(`acme/p${i}`, readerId, visibility)).id;
          const accessLevel = i === 2 ? 10 : null;
          if (accessLevel !== null) await f.member(id, readerId, accessLevel);
          projects.push({ projectId: id, visibility, accessLevel });
        }
        const events = [];
        for (let i = 0; i < 1_200; i++) {
          events.push({
            projectId: projects[i % 3]!.projectId,
            authorId: authors[i % 8]!,
            action: (i % 2 ? 'pushed' : 'created') as Action,
            createdAt: Date.UTC(2026, 0, 1) + i * 3_600_000,
          });
        }
        if (sparse) {
          const other = (await f.user('outsider')).id;
          const elsewhere = (await f.project('acme/elsewhere', other, 'public')).id;
          for (let i = 0; i < OTHERS; i++) {
            events.push({
              projectId: elsewhere,
              authorId: other,
              action: 'created' as Action,
              createdAt: Date.UTC(2025, 0, 1) + i * 60_000,
            });
          }
        }
        await insertEvents(server.store, events);
        await server.store.settle();
        head = (await server.store.events.newestId()) ?? 0;
      });
      after(() => server.close());

      const filters: EventFilter[] = [
        { sort: 'desc' },
        { sort: 'asc' },
        { sort: 'desc', action: 'pushed' },
        { sort: 'asc', createdFrom: Date.UTC(2026, 0, 1), createdBefore: Date.UTC(2026, 0, 2) },
      ];
      const windows: Array<[string, EventWindow]> = [
        ['page 1', { kind: 'offset', offset: 0, limit: 21 }],
        ['page 3', { kind: 'offset', offset: 40, limit: 21 }],
        ['keyset', { kind: 'keyset', afterId: 600, limit: 6 }],
      ];

      /** The sources holding events of the filter's action: the tallies skip the others. */
      const holding = (action: string | undefined, of: (i: number) => number) =>
        new Set(
          Array.from({ length: 1_200 }, (_, i) => i)
            .filter((i) => !action || (i % 2 ? 'pushed' : 'created') === action)
            .map(of),
        );

      function queries(): Array<[string, EventQuery, number]> {
        const viewer = { userId: readerId, admin: false };
        const out: Array<[string, EventQuery, number]> = [];
        for (const filter of filters) {
          const f = JSON.stringify(filter);
          out.push([
            `starred ${f}`,
            {
              source: { kind: 'starred', userId: readerId, projects, set: `s${f}` },
              filter,
              viewer,
              upTo: head,
            },
            holding(filter.action, (i) => i % 3).size,
          ]);
          const followees = authors.slice(0, 4);
          out.push([
            `followed ${f}`,
            {
              source: { kind: 'followed', userId: readerId, followees, set: `f${f}` },
              filter,
              viewer,
              upTo: head,
            },
            [...holding(filter.action, (i) => i % 8)].filter((a) => a < followees.length).length,
          ]);
        }
        return out;
      }

      const scan = (plan: string[]) =>
        plan.find((line) =>
          dialect === 'sqlite' ? /^SCAN (e|events)\b/.test(line) : /Seq Scan on events/.test(line),
        );
      // A source PostgreSQL proves empty (a Guest's pushes: no partition of events can match,
      // migration 027) reads nothing at all, which counts as its walk.
      const searches = (plan: string[]) =>
        plan.filter((line) =>
          dialect === 'sqlite'
            ? /SEARCH (e|events) USING (COVERING )?INDEX events_/.test(line)
            : /Index (Only )?Scan( Backward)? using events_|Bitmap Index Scan on events_|One-Time Filter: false/.test(
                line,
              ),
        ).length;

      // One walk of the log in id order: SQLite's rowid (unsorted), PostgreSQL's primary keys merged.
      // One walk of the log: on SQLite by rowid, in id order and unsorted (or, for a time range, by
      // the time index over just that range); PostgreSQL chooses by its statistics between its
      // primary key and gathering the set's rows by an index (as it does at this size), but reads
      // the events in one index walk either way.
      const oneWalk = (plan: string[]) => {
        if (dialect === 'postgres') return scan(plan) === undefined && searches(plan) === 1;
        const reads = plan.filter((line) => /^(SCAN|SEARCH) e\b/.test(line));
        if (reads.length !== 1) return false;
        if (/USING INDEX events_created_at \(created_at>\? AND created_at<\?\)/.test(reads[0]!)) {
          return true;
        }
        return (
          /^(SCAN e$|SEARCH e USING INTEGER PRIMARY KEY)/.test(reads[0]!) &&
          !plan.some((line) => /TEMP B-TREE FOR ORDER BY/.test(line))
        );
      };

      it(
        sparse
          ? 'every page, window and count searches an events index, once per source'
          : 'every page and window walks the log in id order, unsorted',
        async () => {
          for (const [name, q, sources] of queries()) {
            const plans: Array<[string, string[]]> = [
              ['count', await server.store.events.explain(q, { kind: 'count' })],
            ];
            for (const [label, window] of windows) {
              plans.push([label, await server.store.events.explain(q, { kind: 'list', window })]);
            }
            for (const [label, plan] of plans) {
              const shown = `${name} ${label}:\n${plan.join('\n')}`;
              if (sparse) {
                assert.equal(scan(plan), undefined, shown);
                assert.equal(searches(plan), sources, `one index walk per source: ${shown}`);
              } else if (label !== 'count') {
                // A count walks unordered and stops at its cap, so only pages must keep id order.
                assert.equal(oneWalk(plan), true, `one walk of the log: ${shown}`);
              }
            }
          }
        },
      );

      it('counts from tallies read no events table scan', async () => {
        for (const [name, q] of queries().filter(([n]) => !n.includes('createdFrom'))) {
          const plan = await server.store.events.explain(q, { kind: 'tallies' });
          const found = plan.find((line) =>
            dialect === 'sqlite'
              ? /^SCAN (e|events|event_tallies|confidential_tallies)\b/.test(line)
              : /Seq Scan on (events|event_tallies|confidential_tallies)\b/.test(line),
          );
          assert.equal(found, undefined, `${name}:\n${plan.join('\n')}`);
        }
      });
    });
  }
}
