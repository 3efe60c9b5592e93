/**
 * Every listing query walks an index (issue 13): EXPLAIN QUERY PLAN on SQLite and EXPLAIN on
 * PostgreSQL (sequential scans disabled, so one shows only where no index can serve) for project,
 * user and scope=all listings, with every filter, counts, first and deep pages, keyset windows.
 * scope=all is pinned as a merge of per-project walks: one index search per member project.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventFilter } from '../../src/domain/filters.js';
import type { EventQuery, EventWindow } from '../../src/store/events.js';
import type { Action } from '../../src/domain/vocabulary.js';
import { sql } from 'kysely';
import { BULK_TABLES } from '../../src/store/bulk.js';
import { TALLY_TABLES } from '../../src/store/tallies.js';
import { insertEvents } from '../helpers/bulk.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`listing query plans use indexes (${dialect})`, () => {
    let server: TestServer;
    let aliceId: number;
    /** Signed in, a member of none of alice's projects: her private project is hidden from them. */
    let outsiderId: number;
    /** Another such reader. */
    let otherOutsiderId: number;
    const projects: number[] = [];

    before(async () => {
      server = await startServer({ dialect });
      const f = new Fixtures(server.store);
      aliceId = (await f.user('alice')).id;
      for (const [i, visibility] of (['public', 'internal', 'private'] as const).entries()) {
        const id = (await f.project(`acme/p${i}`, aliceId, visibility)).id;
        projects.push(id);
        await f.member(id, aliceId, i === 2 ? 10 : 30);
      }
      // A realistic spread (ten authors, three projects) and fresh statistics, so the planner
      // chooses as it would on a real database.
      const authors = [aliceId];
      for (let i = 0; i < 9; i++) authors.push((await f.user(`dev${i}`)).id);
      outsiderId = authors[1]!;
      otherOutsiderId = authors[2]!;
      const events = [];
      for (let i = 0; i < 900; i++) {
        events.push({
          projectId: projects[i % 3]!,
          authorId: authors[i % 10]!,
          action: (i % 2 ? 'pushed' : 'created') as Action,
          createdAt: Date.UTC(2026, 0, 1) + i * 3_600_000,
        });
      }
      // Most of alice's events are in her private project: hidden from outsiders, whose reading of
      // her listing is then a merge of her other projects' walks (a minority hidden: one walk).
      for (let i = 0; i < 600; i++) {
        events.push({
          projectId: projects[2]!,
          authorId: aliceId,
          action: (i % 2 ? 'pushed' : 'created') as Action,
          createdAt: Date.UTC(2026, 2, 1) + i * 3_600_000,
        });
      }
      await insertEvents(server.store, events);
      // Issues, a tenth of them confidential: a count starts from those of its project.
      await server.store.db
        .insertInto('issues')
        .values(
          Array.from({ length: 300 }, (_, i) => ({
            project_id: projects[i % 3]!,
            iid: Math.floor(i / 3) + 1,
            title: `issue ${i}`,
            author_id: authors[i % 10]!,
            state: 'opened',
            created_at: 1,
            confidential: i % 10 === 0 ? 1 : 0,
          })),
        )
        .execute();
      await server.store.settle();
    });
    after(() => server.close());

    const filters: EventFilter[] = [
      { sort: 'desc' },
      { sort: 'asc' },
      { sort: 'desc', action: 'pushed' },
      { sort: 'desc', targetType: 'Issue' },
      { sort: 'asc', createdFrom: Date.UTC(2026, 0, 1), createdBefore: Date.UTC(2026, 0, 2) },
    ];
    const windows: Array<[string, EventWindow, number | null]> = [
      ['page 1', { kind: 'offset', offset: 0, limit: 21 }, null],
      ['page 3', { kind: 'offset', offset: 40, limit: 21 }, null],
      ['from a checkpoint', { kind: 'offset', offset: 17, limit: 21 }, 1_000],
      ['keyset', { kind: 'keyset', afterId: 20, limit: 6 }, null],
      ['keyset backwards', { kind: 'keyset', beforeId: 3, limit: 6, reverse: true }, null],
    ];

    function queries(): Array<[string, EventQuery]> {
      const alice = { userId: aliceId, admin: false };
      const out: Array<[string, EventQuery]> = [];
      for (const filter of filters) {
        const f = JSON.stringify(filter);
        out.push([
          `project ${f}`,
          {
            source: {
              kind: 'project',
              projectId: projects[2]!,
              visibility: 'private',
              accessLevel: 10,
            },
            filter,
            viewer: alice,
            upTo: 1_000,
          },
        ]);
        out.push([
          `author, anonymous ${f}`,
          { source: { kind: 'author', userId: aliceId }, filter, viewer: null },
        ]);
        out.push([
          `author, signed in ${f}`,
          { source: { kind: 'author', userId: aliceId }, filter, viewer: alice },
        ]);
        out.push([
          `author, outsider ${f}`,
          {
            source: { kind: 'author', userId: aliceId },
            filter,
            viewer: { userId: outsiderId, admin: false },
            upTo: 1_000,
          },
        ]);
        out.push([
          `scope=all ${f}`,
          { source: { kind: 'memberships', userId: aliceId }, filter, viewer: alice, upTo: 1_000 },
        ]);
      }
      return out;
    }

    /** A line of the plan that reads the events table without an index. */
    function fullScan(plan: string[]): string | undefined {
      return plan.find((line) =>
        dialect === 'sqlite' ? /^SCAN (e|events)\b/.test(line) : /Seq Scan on events/.test(line),
      );
    }

    if (dialect === 'postgres') {
      it('after a bulk load every table it wrote is vacuumed and analyzed (index-only walks need the visibility map)', async () => {
        const { rows } = await sql<{ relname: string; vacuumed: boolean; analyzed: boolean }>`
          SELECT relname, last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed
          FROM pg_stat_user_tables WHERE schemaname = current_schema()`.execute(server.store.db);
        const stats = new Map(rows.map((r) => [r.relname, r]));
        // A partitioned table (migration 027) is vacuumed through its partitions: the one holding
        // the rows stands for it.
        stats.set('events', stats.get('events_0')!);
        stats.set('push_event_payloads', stats.get('push_event_payloads_0')!);
        for (const table of [...BULK_TABLES, ...TALLY_TABLES]) {
          assert.deepEqual(
            { vacuumed: stats.get(table)?.vacuumed, analyzed: stats.get(table)?.analyzed },
            { vacuumed: true, analyzed: true },
            table,
          );
        }
      });
    }

    it('counts, offset pages and keyset windows of every listing search an index', async () => {
      for (const [name, q] of queries()) {
        const plans: Array<[string, string[]]> = [
          ['count', await server.store.events.explain(q, { kind: 'count' })],
        ];
        for (const [label, window, fromId] of windows) {
          plans.push([
            label,
            await server.store.events.explain(q, { kind: 'list', window, fromId }),
          ]);
        }
        for (const [label, plan] of plans) {
          assert.ok(plan.length > 0, `${name} ${label}: a plan`);
          assert.equal(fullScan(plan), undefined, `${name} ${label}:\n${plan.join('\n')}`);
          // PostgreSQL refutes a filter no partition can match (a Guest's pushes): nothing is read.
          if (plan.some((line) => /One-Time Filter: false/.test(line))) continue;
          const indexed = plan.some((line) =>
            dialect === 'sqlite'
              ? /SEARCH (e|events) USING (COVERING )?INDEX events_/.test(line)
              : /Index (Only )?Scan( Backward)? using events_|Bitmap Index Scan on events_/.test(
                  line,
                ),
          );
          assert.ok(indexed, `${name} ${label} walks an events index:\n${plan.join('\n')}`);
        }
      }
    });

    it('counts from tallies search their keys and start from confidential issues by project', async () => {
      const tallied = queries().filter(([name]) => !name.includes('createdFrom'));
      assert.equal(tallied.length, 20);
      const tables = /(event_tallies|issue_event_tallies|confidential_tallies|issues|events)\b/;
      for (const [name, q] of tallied) {
        const plan = await server.store.events.explain(q, { kind: 'tallies' });
        const scan = plan.find((line) =>
          dialect === 'sqlite'
            ? /^SCAN (e|ci|events|event_tallies|issue_event_tallies|confidential_tallies|issues)\b/.test(
                line,
              )
            : /Seq Scan on/.test(line) && tables.test(line),
        );
        assert.equal(scan, undefined, `${name}:\n${plan.join('\n')}`);
        // Alice is Guest in the private project: her count there subtracts what its confidential
        // issues hide (migration 018) and adds back her own, found through the partial index of
        // confidential issues.
        if (q.source.kind === 'project') {
          assert.ok(
            plan.some((line) => /issues_confidential/.test(line)),
            `${name}:\n${plan.join('\n')}`,
          );
        }
      }
    });

    // The count walks up to 10,001 entries; reading each one's row for the action, target type or
    // issue was most of a first request (migration 014). PostgreSQL's choice of an index-only scan
    // depends on its visibility map, so only SQLite's plan is pinned.
    const sqliteOnly = dialect === 'sqlite' ? it : () => undefined;
    sqliteOnly(
      'counts of project and user listings stay in the index: no event row is read',
      async () => {
        const counted = queries().filter(
          ([name]) => !name.startsWith('scope=all') && !name.includes('createdFrom'),
        );
        assert.equal(counted.length, 16);
        for (const [name, q] of counted) {
          const plan = await server.store.events.explain(q, { kind: 'count' });
          const walk = plan.find((line) => /^SEARCH e /.test(line));
          // Alice is Guest in the private project: notes on its merge requests are hidden from
          // her, and only the event's row (its target) and the note tell which those are.
          const guest = name.startsWith('project') || name.startsWith('author, signed in');
          assert.match(
            walk ?? '',
            guest ? /^SEARCH e USING INDEX events_/ : /^SEARCH e USING COVERING INDEX events_/,
            `${name}:\n${plan.join('\n')}`,
          );
          if (guest) {
            assert.ok(
              plan.some((line) => /^SEARCH n USING INTEGER PRIMARY KEY/.test(line)),
              `${name}:\n${plan.join('\n')}`,
            );
          }
        }
      },
    );

    it("a user's listing merges one walk per project the viewer may read, never stepping over the hidden ones", async () => {
      // The outsider reads alice's public and internal projects, not her private one; anonymous
      // readers only the public one. Her own listing hides nothing by project: one walk in id order.
      // dev0's events are spread evenly: a signed-in outsider misses a third of them, and reads
      // them in one walk; anonymous readers miss two thirds, and walk the public project alone.
      const cases: Array<[string, number, EventQuery['viewer'], number]> = [
        ['outsider', aliceId, { userId: outsiderId, admin: false }, 2],
        ['anonymous', aliceId, null, 1],
        ['herself', aliceId, { userId: aliceId, admin: false }, 0],
        ['outsider, a minority hidden', outsiderId, { userId: otherOutsiderId, admin: false }, 0],
        ['anonymous, most hidden', outsiderId, null, 1],
      ];
      for (const [who, author, viewer, arms] of cases) {
        // At a head, as every listing reads: PostgreSQL then plans no empty partition above it.
        const q: EventQuery = {
          source: { kind: 'author', userId: author },
          filter: { sort: 'desc' },
          viewer,
          upTo: 1_500,
        };
        const plan = await server.store.events.explain(q, {
          kind: 'list',
          window: { kind: 'offset', offset: 40, limit: 21 },
        });
        // An arm is a walk of one project's events of hers: both columns lead the index search.
        const walks = plan.filter((line) =>
          dialect === 'sqlite'
            ? /SEARCH e USING (COVERING )?INDEX events_author_project_walk \(author_id=\? AND project_id=\?/.test(
                line,
              )
            : /Index Cond: \(\(author_id = \d+\) AND \(project_id = \d+\)( AND \(id <= '\d+'::bigint\))?\)/.test(
                line,
              ),
        );
        assert.equal(walks.length, arms, `${who}:\n${plan.join('\n')}`);
        // One walk of all the user's events in id order (PostgreSQL may bitmap-scan 90 rows instead).
        if (arms === 0 && dialect === 'sqlite') {
          assert.ok(
            plan.some((line) =>
              /SEARCH e USING (COVERING )?INDEX events_author_walk \(author_id=\?\)/.test(line),
            ),
            `${who}:\n${plan.join('\n')}`,
          );
        }
        if (arms > 1) {
          assert.ok(
            plan.some((line) =>
              (dialect === 'sqlite' ? /MERGE \(UNION ALL\)/ : /Merge Append/).test(line),
            ),
            `${who}:\n${plan.join('\n')}`,
          );
        }
        // No walk reads the private project's events (PostgreSQL names the ids it searches).
        assert.ok(
          !plan.some((line) => new RegExp(`project_id = ${projects[2]}\\b`).test(line)),
          `${who}:\n${plan.join('\n')}`,
        );
        // SQLite walks each index in id order: nothing is sorted. PostgreSQL sorts an arm where it
        // holds fewer rows than the page needs (30 here); on 1,000,000 events it walks the index
        // backward (the README's performance section).
        if (dialect === 'sqlite') {
          assert.ok(!plan.some((line) => /TEMP B-TREE/.test(line)), `${who}:\n${plan.join('\n')}`);
        }
      }
    });

    it('scope=all merges one index walk per member project as they stream, never a join over all events', async () => {
      const q: EventQuery = {
        source: { kind: 'memberships', userId: aliceId },
        filter: { sort: 'desc' },
        viewer: { userId: aliceId, admin: false },
        upTo: 1_500,
      };
      const plan = await server.store.events.explain(q, {
        kind: 'list',
        window: { kind: 'offset', offset: 40, limit: 21 },
      });
      const walks = plan.filter((line) =>
        dialect === 'sqlite'
          ? /SEARCH e USING (COVERING )?INDEX events_project/.test(line)
          : /Index (Only )?Scan( Backward)? using events_(\d+_)?project|Bitmap Index Scan on events_(\d+_)?project/.test(
              line,
            ),
      );
      assert.equal(walks.length, projects.length, plan.join('\n'));
      assert.ok(
        !plan.some((line) => /project_members/.test(line) && /SCAN|Seq Scan/.test(line)),
        plan.join('\n'),
      );
      // The walks are merged as they stream, in id order from their indexes: nothing is sorted,
      // so a page reads only as far into each project as the merge takes from it.
      assert.ok(
        plan.some((line) =>
          (dialect === 'sqlite' ? /MERGE \(UNION ALL\)/ : /Merge Append/).test(line),
        ),
        plan.join('\n'),
      );
      assert.ok(!plan.some((line) => /TEMP B-TREE|(^|->)\s*Sort\s+\(/.test(line)), plan.join('\n'));
    });

    // Last: it adds a partition of events to the data the other plans read.
    const postgresOnly = dialect === 'postgres' ? it : () => undefined;
    postgresOnly(
      'a first page walks the newest partition only: later ones are pruned, older ones never run',
      async () => {
        // Events of the public project in a second range of ids (migration 027: a million a
        // partition), and partitions made ahead of the sequence past them, still empty.
        const first = 1_000_001;
        await server.store.events.ensurePartitions({ from: first, through: first + 59 });
        await sql`INSERT INTO events (id, project_id, author_id, action, created_at)
          SELECT g, ${projects[0]!}, ${aliceId}, 1, ${Date.UTC(2026, 5, 1)}::bigint + g
          FROM generate_series(${first}::bigint, ${first + 59}::bigint) g`.execute(server.store.db);
        await sql`SELECT setval(pg_get_serial_sequence('events', 'id'), ${first + 59}::bigint)`.execute(
          server.store.db,
        );
        await server.store.events.ensurePartitions();
        const names = (await server.store.events.partitions()).map((p) => p.name);
        assert.deepEqual(names, ['events_0', 'events_1000000', 'events_2000000', 'events_3000000']);
        await sql`ANALYZE events`.execute(server.store.db);

        const page = async (sort: 'asc' | 'desc') => {
          const q: EventQuery = {
            source: {
              kind: 'project',
              projectId: projects[0]!,
              visibility: 'public',
              accessLevel: 30,
            },
            filter: { sort },
            viewer: { userId: aliceId, admin: false },
            upTo: first + 59,
          };
          return server.store.events.explain(
            q,
            { kind: 'list', window: { kind: 'offset', offset: 0, limit: 21 } },
            true,
          );
        };
        /** The partitions the plan walks, each with whether it ran. */
        const walked = (plan: string[]) =>
          plan
            .map((line) =>
              /Index (?:Only )?Scan(?: Backward)? using \S+ on (events_\d+)\b(.*)/.exec(line),
            )
            .filter((m): m is RegExpExecArray => m !== null)
            .map((m) => [m[1], !/never executed/.test(m[2]!)]);

        // Newest first: the page is in the newest range; the one below is in the plan (a page may
        // reach into it) but never runs, and the empty ranges above the head are not planned.
        const desc = await page('desc');
        assert.deepEqual(
          walked(desc),
          [
            ['events_1000000', true],
            ['events_0', false],
          ],
          desc.join('\n'),
        );
        assert.ok(!desc.some((line) => /Sort\b|Merge Append|Seq Scan/.test(line)), desc.join('\n'));
        // Oldest first: the other way round.
        const asc = await page('asc');
        assert.deepEqual(
          walked(asc),
          [
            ['events_0', true],
            ['events_1000000', false],
          ],
          asc.join('\n'),
        );
        assert.ok(!asc.some((line) => /Sort\b|Merge Append|Seq Scan/.test(line)), asc.join('\n'));
      },
    );
  });
}
