/**
 * The starred and followed listings walk indexes (issue 33): EXPLAIN QUERY PLAN on SQLite and
 * EXPLAIN on PostgreSQL (sequential scans off, so one shows only where no index can serve), for
 * every filter, counts, pages and keyset windows; merged, they search the events once per starred
 * project or followed user (a merge of per-source walks, not a scan of the log).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventFilter } from '../../src/domain/filters.js';
import type { Action } from '../../src/domain/vocabulary.js';
import type { EventQuery, EventWindow } from '../../src/store/events.js';
import { insertEvents } from '../helpers/bulk.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`starred and followed listing plans use indexes (${dialect})`, () => {
    let server: TestServer;
    let readerId: number;
    const projects: Array<{ projectId: number; visibility: string; accessLevel: number | null }> =
      [];
    const authors: number[] = [];

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
      await insertEvents(server.store, events);
      await server.store.settle();
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

    function queries(): Array<[string, EventQuery, number]> {
      const viewer = { userId: readerId, admin: false };
      const out: Array<[string, EventQuery, number]> = [];
      for (const filter of filters) {
        const f = JSON.stringify(filter);
        out.push([
          `starred ${f}`,
          { source: { kind: 'starred', userId: readerId, projects }, filter, viewer, upTo: 2_000 },
          projects.length,
        ]);
        const followees = authors.slice(0, 4);
        out.push([
          `followed ${f}`,
          {
            source: { kind: 'followed', userId: readerId, followees },
            filter,
            viewer,
            upTo: 2_000,
          },
          followees.length,
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

    it('every page, window and count searches an events index, once per source', async () => {
      for (const [name, q, sources] of queries()) {
        const plans: Array<[string, string[]]> = [
          ['count', await server.store.events.explain(q, { kind: 'count' })],
        ];
        for (const [label, window] of windows) {
          plans.push([label, await server.store.events.explain(q, { kind: 'list', window })]);
        }
        for (const [label, plan] of plans) {
          assert.equal(scan(plan), undefined, `${name} ${label}:\n${plan.join('\n')}`);
          assert.equal(
            searches(plan),
            sources,
            `${name} ${label}: one index walk per source:\n${plan.join('\n')}`,
          );
        }
      }
    });

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
