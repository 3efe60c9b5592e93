/**
 * Listing counts sum event tallies (migrations 017, 018) instead of walking up to 10,001 events.
 * The tallies must give exactly what the walk gives, for every source, viewer, filter and head,
 * after every kind of write: appends, a hand-typed update and delete, an issue turning confidential
 * and back, issues moved, renumbered, deleted and created after events that named them, and a bulk
 * load (which sets the SQLite triggers aside and tallies again at the end).
 *
 * Each check compares `count` with `walkCount` (the walk every count used to be) over the same
 * queries, the tally tables with a grouping of the events table from scratch, and users' listings
 * (merged from per-project walks where the viewer may not read all their projects) with the rules
 * applied by hand.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { EventFilter } from '../../src/domain/filters.js';
import { actionCode, type Action, type Visibility } from '../../src/domain/vocabulary.js';
import { canReadProject } from '../../src/domain/visibility.js';
import type { EventQuery, EventSource } from '../../src/store/events.js';
import { bulkLoad } from '../../src/store/bulk-load.js';
import { insertEvents, type BulkEvent } from '../helpers/bulk.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const CAP = 10_000;

for (const dialect of DIALECTS) {
  describe(`event tallies count exactly what the walk counts (${dialect})`, () => {
    let server: TestServer;
    const users: Record<string, number> = {};
    const projects: Array<{ id: number; visibility: string }> = [];
    const issues: Array<{ id: number; projectId: number; authorId: number }> = [];
    let secret: { id: number; projectId: number; authorId: number };

    before(async () => {
      server = await startServer({ dialect });
      const f = new Fixtures(server.store);
      for (const name of ['alice', 'bob', 'carol', 'dave']) users[name] = (await f.user(name)).id;
      for (const [i, visibility] of (['public', 'internal', 'private'] as const).entries()) {
        const id = (await f.project(`acme/t${i}`, users.alice!, visibility)).id;
        projects.push({ id, visibility });
      }
      // carol: Reporter in the public project; dave: Guest in the private one (no code, and
      // confidential issues only his own); bob: no membership.
      await f.member(projects[0]!.id, users.carol!, 20);
      await f.member(projects[2]!.id, users.dave!, 10);
      for (const project of projects) {
        for (const [author, confidential] of [
          ['alice', true],
          ['bob', false],
          ['dave', true],
          ['carol', false],
        ] as const) {
          const row = await f.issue(
            project.id,
            users[author]!,
            `${author} in ${project.id}`,
            confidential,
          );
          issues.push({ id: row.id, projectId: project.id, authorId: users[author]! });
        }
      }
      // An issue that events name (the spread below gives the second project's issues of bob and
      // carol events), so turning it confidential has something to hide.
      secret = issues.find((i) => i.authorId === users.bob && i.projectId === projects[1]!.id)!;
      await insertEvents(server.store, spread(0, 600));
      // Most of alice's events in the private project: outsiders read her listing merged from
      // walks of her other projects (store/events.ts `authorParts`).
      await insertEvents(
        server.store,
        spread(600, 1200).map((e) => ({
          ...e,
          projectId: projects[2]!.id,
          authorId: users.alice!,
        })),
      );
    });
    after(() => server.close());

    /** `n` events over every project, author, action and issue, deterministic from `from`. */
    function spread(from: number, n: number): BulkEvent[] {
      const authors = Object.values(users);
      const kinds: Array<[Action, string | null, boolean]> = [
        ['created', 'Issue', true],
        ['closed', 'Issue', true],
        ['commented', 'Note', true],
        ['pushed', null, false],
        ['joined', null, false],
        ['commented', 'Note', false],
      ];
      const events: BulkEvent[] = [];
      for (let i = from; i < from + n; i++) {
        const project = projects[i % projects.length]!;
        const [action, targetType, aboutIssue] = kinds[(i * 7) % kinds.length]!;
        const ofProject = issues.filter((x) => x.projectId === project.id);
        events.push({
          projectId: project.id,
          authorId: authors[(i * 3) % authors.length]!,
          action,
          targetType,
          issueId: aboutIssue ? ofProject[i % ofProject.length]!.id : null,
          createdAt: Date.UTC(2026, 0, 1) + i * 60_000,
        });
      }
      return events;
    }

    async function queries(): Promise<EventQuery[]> {
      const { id: head } = await server.store.events.head();
      const viewers = [
        null,
        ...['alice', 'bob', 'carol', 'dave'].map((n) => ({ userId: users[n]!, admin: false })),
        { userId: users.bob!, admin: true },
      ];
      const filters: EventFilter[] = [
        { sort: 'desc' },
        { sort: 'desc', action: 'pushed' },
        { sort: 'asc', targetType: 'Issue' },
        { sort: 'desc', action: 'commented', targetType: 'Note' },
        {
          sort: 'desc',
          kinds: [
            { actions: ['created', 'closed'], targetTypes: ['Issue'] },
            { actions: ['joined'] },
          ],
        },
      ];
      const out: EventQuery[] = [];
      for (const viewer of viewers) {
        const sources: EventSource[] = [
          ...Object.values(users).map((userId) => ({ kind: 'author' as const, userId })),
        ];
        for (const p of projects) {
          const level = viewer
            ? await server.store.db
                .selectFrom('project_members')
                .select('access_level')
                .where('project_id', '=', p.id)
                .where('user_id', '=', viewer.userId)
                .executeTakeFirst()
            : undefined;
          sources.push({
            kind: 'project',
            projectId: p.id,
            visibility: p.visibility,
            accessLevel: level?.access_level ?? null,
          });
        }
        if (viewer) sources.push({ kind: 'memberships', userId: viewer.userId });
        for (const source of sources) {
          for (const filter of filters) {
            // No head; the head; a head from before the last 25 events (a reader's snapshot).
            for (const upTo of [undefined, head, head - 25])
              out.push({ source, filter, viewer, upTo });
          }
        }
      }
      return out;
    }

    async function assertExact(when: string) {
      let mismatches = 0;
      const checked = await queries();
      for (const q of checked) {
        const tallied = await server.store.events.count(q, CAP);
        const walked = await server.store.events.walkCount(q, CAP);
        if (tallied !== walked) {
          mismatches++;
          assert.equal(tallied, walked, `${when}: ${JSON.stringify(q)}`);
        }
      }
      assert.equal(mismatches, 0);
      assert.ok(checked.length > 400, `${checked.length} queries`);
      await assertAuthorListings(when, checked);
      // And the tallies themselves against a grouping of the events from scratch.
      const { rows: expected } = await sql<{ k: string; n: number }>`
        SELECT project_id || ':' || author_id || ':' || action || ':' || coalesce(target_type, '') AS k,
               count(*) AS n FROM events GROUP BY project_id, author_id, action, target_type`.execute(
        server.store.db,
      );
      const { rows: tallies } = await sql<{ k: string; n: number }>`
        SELECT project_id || ':' || author_id || ':' || action || ':' || target_type AS k, n
        FROM event_tallies WHERE n <> 0`.execute(server.store.db);
      const asMap = (rows: Array<{ k: string; n: number }>) =>
        Object.fromEntries(rows.map((r) => [r.k, Number(r.n)]).sort());
      assert.deepEqual(asMap(tallies), asMap(expected), when);
      const { rows: perIssue } = await sql<{ wrong: number }>`
        SELECT count(*) AS wrong FROM (
          SELECT issue_id, project_id, author_id, action, coalesce(target_type, '') AS t, count(*) AS n
          FROM events WHERE issue_id IS NOT NULL
          GROUP BY issue_id, project_id, author_id, action, coalesce(target_type, '')
        ) g FULL OUTER JOIN (SELECT * FROM issue_event_tallies WHERE n <> 0) t
          ON t.issue_id = g.issue_id AND t.project_id = g.project_id AND t.author_id = g.author_id
         AND t.action = g.action AND t.target_type = g.t AND t.n = g.n
        WHERE t.issue_id IS NULL OR g.issue_id IS NULL`.execute(server.store.db);
      assert.equal(Number(perIssue[0]!.wrong), 0, `${when}: per-issue tallies`);
      const { rows: confidential } = await sql<{ wrong: number }>`
        SELECT count(*) AS wrong FROM (
          SELECT e.project_id, e.author_id, e.action, coalesce(e.target_type, '') AS t, count(*) AS n
          FROM events e JOIN issues ci ON ci.id = e.issue_id AND ci.project_id = e.project_id
          WHERE ci.confidential = 1
          GROUP BY e.project_id, e.author_id, e.action, coalesce(e.target_type, '')
        ) g FULL OUTER JOIN (SELECT * FROM confidential_tallies WHERE n <> 0) t
          ON t.project_id = g.project_id AND t.author_id = g.author_id AND t.action = g.action
         AND t.target_type = g.t AND t.n = g.n
        WHERE t.project_id IS NULL OR g.project_id IS NULL`.execute(server.store.db);
      assert.equal(Number(confidential[0]!.wrong), 0, `${when}: confidential tallies`);
    }

    /**
     * A user's listing is merged from walks of the projects the viewer may read (migration 019,
     * `authorParts`). Every author query's rows, whole and as a page from an offset, against the
     * rules applied by hand to all of the author's events.
     */
    async function assertAuthorListings(when: string, checked: EventQuery[]) {
      const db = server.store.db;
      const events = await db.selectFrom('events').selectAll().orderBy('id').execute();
      const projectRows = await db.selectFrom('projects').select(['id', 'visibility']).execute();
      const visibilityOf = new Map(projectRows.map((p) => [p.id, p.visibility as Visibility]));
      const members = await db.selectFrom('project_members').selectAll().execute();
      const levelOf = (projectId: number, userId: number) =>
        members.find((m) => m.project_id === projectId && m.user_id === userId)?.access_level ??
        null;
      const issueRows = await db
        .selectFrom('issues')
        .select(['id', 'project_id', 'author_id', 'confidential'])
        .execute();
      const issueOf = new Map(issueRows.map((i) => [i.id, i]));
      const noteRows = await db
        .selectFrom('notes')
        .select(['id', 'project_id', 'noteable_type'])
        .execute();
      const noteOf = new Map(noteRows.map((n) => [n.id, n]));
      let merged = 0;
      for (const q of checked) {
        if (q.source.kind !== 'author') continue;
        const { userId } = q.source;
        const { viewer, filter } = q;
        const shown = events.filter((e) => {
          if (e.author_id !== userId || (q.upTo !== undefined && e.id > q.upTo)) return false;
          if (filter.action && e.action !== actionCode(filter.action)) return false;
          if (filter.targetType && e.target_type !== filter.targetType) return false;
          if (
            filter.kinds &&
            !filter.kinds.some(
              (k) =>
                k.actions.map(actionCode).includes(e.action) &&
                (!k.targetTypes ||
                  (k.targetTypes as readonly string[]).includes(e.target_type ?? '')),
            )
          ) {
            return false;
          }
          if (viewer?.admin) return true;
          const level = viewer ? levelOf(e.project_id, viewer.userId) : null;
          if (!canReadProject(visibilityOf.get(e.project_id)!, viewer, level)) return false;
          const reporter = (level ?? 0) >= 20;
          if (visibilityOf.get(e.project_id) === 'private' && !reporter) {
            // No code and no merge requests (their events and notes) for guests of a private
            // project; a note is shown only when its row says it is elsewhere.
            if (e.action === actionCode('pushed') || e.target_type === 'MergeRequest') return false;
            if (e.target_type === 'Note' && e.issue_id === null) {
              const note = noteOf.get(e.target_id ?? 0);
              if (
                !note ||
                note.project_id !== e.project_id ||
                note.noteable_type === 'MergeRequest'
              )
                return false;
            }
          }
          const issue = e.issue_id === null ? undefined : issueOf.get(e.issue_id);
          const confidential =
            issue && issue.project_id === e.project_id && Number(issue.confidential) === 1;
          if (confidential && !reporter && issue.author_id !== viewer?.userId) return false;
          return true;
        });
        const ids = shown.map((e) => e.id);
        if (filter.sort !== 'asc') ids.reverse();
        const all = await server.store.events.list(q, { kind: 'offset', offset: 0, limit: 10_000 });
        assert.deepEqual(
          all.map((e) => e.id),
          ids,
          `${when}: ${JSON.stringify(q)}`,
        );
        const page = await server.store.events.list(q, { kind: 'offset', offset: 7, limit: 5 });
        assert.deepEqual(
          page.map((e) => e.id),
          ids.slice(7, 12),
          `${when}, a page: ${JSON.stringify(q)}`,
        );
        if (viewer && !viewer.admin && levelOf(projects[2]!.id, viewer.userId) === null) merged++;
      }
      // Viewers outside the private project read users' listings as merged walks.
      assert.ok(merged > 50, `${merged} merged listings`);
    }

    it('after appends', async () => {
      await assertExact('appends');
    });

    // The viewer's own confidential issues are added back only when the rest of a count is within
    // the cap (`tallyCount`): dave, a Guest or an outsider of every project, has confidential
    // issues of his own in each. Each of his listings is counted with the cap just below, at and
    // above the rest (its length less his own issues' events) and its length.
    it('with any cap, what the viewer may see of their own confidential issues is counted', async () => {
      const { id: head } = await server.store.events.head();
      const viewer = { userId: users.dave!, admin: false };
      const own = new Set(
        (
          await server.store.db
            .selectFrom('issues')
            .select('id')
            .where('author_id', '=', users.dave!)
            .where('confidential', '=', 1)
            .execute()
        ).map((i) => i.id),
      );
      const sources: EventSource[] = [
        { kind: 'author', userId: users.alice! },
        { kind: 'author', userId: users.dave! },
        { kind: 'memberships', userId: users.dave! },
        ...projects.map((p, i) => ({
          kind: 'project' as const,
          projectId: p.id,
          visibility: p.visibility,
          accessLevel: i === 2 ? 10 : null,
        })),
      ];
      let crossed = 0;
      for (const source of sources) {
        for (const upTo of [head, head - 25]) {
          const q: EventQuery = { source, filter: { sort: 'desc' }, viewer, upTo };
          const rows = await server.store.events.list(q, { kind: 'offset', offset: 0, limit: CAP });
          const n = rows.length;
          const rest = n - rows.filter((e) => e.issue_id !== null && own.has(e.issue_id)).length;
          if (rest < n) crossed++;
          for (const cap of new Set([0, rest - 1, rest, rest + 1, n - 1, n, n + 1])) {
            if (cap < 0) continue;
            const counted = await server.store.events.count(q, cap);
            assert.equal(counted, Math.min(n, cap + 1), `cap ${cap}: ${JSON.stringify(q)}`);
          }
        }
      }
      // Dave's own issues' events are in most of these listings.
      assert.ok(crossed >= 8, `${crossed} listings with his own confidential issues' events`);
    });

    it('after an issue turns confidential, and back', async () => {
      const named = await server.store.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('issue_id', '=', secret.id)
        .executeTakeFirstOrThrow();
      assert.ok(Number(named.n) > 10, `${named.n} events of the issue`);
      await server.store.db
        .updateTable('issues')
        .set({ confidential: 1 })
        .where('id', '=', secret.id)
        .execute();
      await assertExact('confidential');
      await server.store.db
        .updateTable('issues')
        .set({ confidential: 0 })
        .where('id', '=', secret.id)
        .execute();
      await assertExact('public again');
    });

    it('after a hand-typed update and delete of events', async () => {
      const [first, second] = projects;
      await sql`UPDATE events SET project_id = ${second!.id}, action = ${actionCode('closed')}
        WHERE id IN (SELECT id FROM events WHERE project_id = ${first!.id} ORDER BY id LIMIT 40)`.execute(
        server.store.db,
      );
      await sql`UPDATE events SET issue_id = NULL
        WHERE id IN (SELECT id FROM events WHERE issue_id IS NOT NULL ORDER BY id DESC LIMIT 30)`.execute(
        server.store.db,
      );
      await sql`DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT 50)`.execute(
        server.store.db,
      );
      await assertExact('update and delete');
    });

    it('after issues move, change ids, are deleted, and come to events that named them', async () => {
      const db = server.store.db;
      const f = new Fixtures(server.store);
      const [p0, p1, p2] = projects;
      const of = (author: string, project: { id: number }) =>
        issues.find((i) => i.authorId === users[author] && i.projectId === project.id)!;
      // Alice's confidential issue moves to another project: its events stay where they were,
      // where no issue of theirs is confidential any more.
      await db
        .updateTable('issues')
        .set({ project_id: p1!.id })
        .where('id', '=', of('alice', p0!).id)
        .execute();
      await db.deleteFrom('issues').where('id', '=', of('dave', p1!).id).execute();
      // Events naming issues that do not exist yet, then the issues: one inserted with that id,
      // one created with another and renumbered to it.
      const ghost = 900_001;
      const renumbered = 900_002;
      const named = (issueId: number) =>
        spread(2000, 40).map((e) => ({ ...e, projectId: p2!.id, issueId }));
      await insertEvents(server.store, [...named(ghost), ...named(renumbered)]);
      await assertExact('events of issues to come');
      await db
        .insertInto('issues')
        .values({
          id: ghost,
          project_id: p2!.id,
          iid: 9001,
          title: 'ghost',
          author_id: users.alice!,
          confidential: 1,
          state: 'opened',
          created_at: 0,
        })
        .execute();
      const fresh = await f.issue(p2!.id, users.dave!, 'renumbered', true);
      await db.updateTable('issues').set({ id: renumbered }).where('id', '=', fresh.id).execute();
      await assertExact('issues moved, deleted, created and renumbered');
    });

    // PostgreSQL writers run side by side: a flip of confidentiality and an append of an event of
    // the same issue must not miss each other (each takes the events lock before reading the other
    // side). The flip stays open while the append is sent; without the lock the append would read
    // the issue as not yet confidential and commit, and the flip would move the issue's tallies
    // without that event.
    const postgresOnly = dialect === 'postgres' ? it : () => undefined;
    postgresOnly('after an append racing an issue turning confidential, both ways', async () => {
      const db = server.store.db;
      const issue = issues.find(
        (i) => i.authorId === users.carol && i.projectId === projects[1]!.id,
      )!;
      const event = (n: number) =>
        spread(3000 + n, 1).map((e) => ({ ...e, projectId: issue.projectId, issueId: issue.id }));
      for (const confidential of [1, 0] as const) {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let flipped!: () => void;
        const flipDone = new Promise<void>((resolve) => (flipped = resolve));
        const flip = db.transaction().execute(async (trx) => {
          await trx
            .updateTable('issues')
            .set({ confidential })
            .where('id', '=', issue.id)
            .execute();
          flipped();
          await held;
        });
        await flipDone;
        const append = insertEvents(server.store, event(confidential));
        await new Promise((resolve) => setTimeout(resolve, 300));
        release();
        await Promise.all([flip, append]);
        await assertExact(`append racing confidential = ${confidential}`);
      }
    });

    it('after a bulk load, which recounts only the projects it wrote events in', async () => {
      const { dialect: d } = server.store.conn;
      const { db } = server.store;
      // Events in every project but the last; the last's tallies are left as they stand, so a
      // row made wrong there on purpose outlives the load (and is set right after).
      const [spared] = projects.slice(-1);
      const rows = spread(600, 400)
        .filter((e) => e.projectId !== spared!.id)
        .map((e) => ({
          project_id: e.projectId,
          author_id: e.authorId,
          action: actionCode(e.action),
          target_type: e.targetType ?? null,
          target_id: null,
          issue_id: e.issueId ?? null,
          created_at: e.createdAt,
        }));
      const wrong = { project_id: spared!.id, author_id: -7, action: 99, target_type: '', n: 1 };
      await db.insertInto('event_tallies').values(wrong).execute();
      await db.transaction().execute((trx) =>
        bulkLoad(
          trx,
          d,
          () => trx.insertInto('events').values(rows).execute(),
          () => rows.map((r) => r.project_id),
        ),
      );
      const kept = await db
        .selectFrom('event_tallies')
        .select('n')
        .where('project_id', '=', spared!.id)
        .where('author_id', '=', -7)
        .execute();
      assert.deepEqual(kept, [{ n: 1 }], 'a project the load wrote no event in is not recounted');
      await db.deleteFrom('event_tallies').where('author_id', '=', -7).execute();
      await assertExact('bulk load');
    });
  });
}
