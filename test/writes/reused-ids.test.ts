/**
 * An id is never given twice, and an event shows only a target of its own project.
 *
 * The leak this guards against: a milestone of a public project is deleted, one is created in a
 * private project and took the same id (SQLite gave the highest freed id again), and the public
 * project's events, feed, page and GraphQL named the private milestone. Also: a database made by
 * the migrations before 020 keeps every row through the rebuild and stops reusing ids.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openDatabase } from '../../src/store/database.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { raw } from '../graphql/client.js';
import { applyFirst, migrationIndex } from '../helpers/migrations.js';
import { DIALECTS } from '../helpers/server.js';
import { type Actors, api, startWithUsers } from './helpers.js';

const SECRET = 'TOP-SECRET-PRIVATE-MILESTONE';

const TARGETS = `query ($path: ID!) {
  project(fullPath: $path) {
    events(first: 20) {
      nodes {
        actionName targetType targetId targetTitle
        target { __typename ... on Milestone { databaseId title projectId } }
      }
    }
  }
}`;

for (const dialect of DIALECTS) {
  describe(`an event never shows another project's object (${dialect})`, () => {
    let a: Actors;
    let pub: number;
    let priv: number;
    let deleted: number;
    let secret: number;

    /** The public project's milestone events, as an anonymous reader lists them over REST. */
    async function milestoneEvents(): Promise<Record<string, unknown>[]> {
      const rest = await api(
        a.server,
        'GET',
        `/projects/${pub}/events?target_type=milestone`,
        undefined,
      );
      assert.equal(rest.status, 200, rest.text);
      return rest.body as Record<string, unknown>[];
    }

    /** Everything anonymous readers of the public project get, as text. */
    async function anonymousViews(): Promise<{
      rest: string;
      feed: string;
      page: string;
      graphql: string;
    }> {
      const rest = await milestoneEvents();
      const feed = await fetch(`${a.server.url}/alice/public.atom`);
      assert.equal(feed.status, 200);
      const page = await fetch(`${a.server.url}/alice/public`);
      assert.equal(page.status, 200);
      const graph = await raw(a.server.url, TARGETS, { path: 'alice/public' });
      assert.equal(graph.status, 200);
      return {
        rest: JSON.stringify(rest),
        feed: await feed.text(),
        page: await page.text(),
        graphql: JSON.stringify(graph.body),
      };
    }

    before(async () => {
      a = await startWithUsers(dialect, ['alice']);
      for (const [name, visibility] of [
        ['public', 'public'],
        ['secret', 'private'],
      ]) {
        const res = await api(a.server, 'POST', '/projects', a.tokens.alice, { name, visibility });
        assert.equal(res.status, 201);
        if (visibility === 'public') pub = (res.body as { id: number }).id;
        else priv = (res.body as { id: number }).id;
      }
    });
    after(() => a.server.close());

    it('a milestone made after a delete gets a new id, and the deleted one shows as deleted', async () => {
      const made = await api(a.server, 'POST', `/projects/${pub}/milestones`, a.tokens.alice, {
        title: 'Public plan',
      });
      assert.equal(made.status, 201);
      deleted = (made.body as { id: number }).id;
      const gone = await api(
        a.server,
        'DELETE',
        `/projects/${pub}/milestones/${deleted}`,
        a.tokens.alice,
      );
      assert.equal(gone.status, 204);
      const hidden = await api(a.server, 'POST', `/projects/${priv}/milestones`, a.tokens.alice, {
        title: SECRET,
      });
      assert.equal(hidden.status, 201);
      secret = (hidden.body as { id: number }).id;
      assert.ok(secret > deleted, `id ${secret} was given again (deleted ${deleted})`);

      assert.deepEqual(
        (await milestoneEvents()).map((e) => [
          e.action_name,
          e.project_id,
          e.target_id,
          e.target_iid,
          e.target_title,
        ]),
        [
          ['destroyed', pub, deleted, deleted, null],
          ['opened', pub, deleted, deleted, null],
        ],
      );
      const views = await anonymousViews();
      for (const [face, text] of Object.entries(views)) {
        assert.ok(!text.includes(SECRET), `${face} shows the private title`);
      }
      assert.ok(!views.graphql.includes(`"projectId":${priv}`), views.graphql);
      const graph = JSON.parse(views.graphql) as {
        data: { project: { events: { nodes: Record<string, unknown>[] } } };
      };
      assert.deepEqual(
        graph.data.project.events.nodes.map((n) => [
          n.actionName,
          n.targetType,
          n.targetId,
          n.targetTitle,
          n.target,
        ]),
        [
          ['destroyed', 'MILESTONE', deleted, null, null],
          ['opened', 'MILESTONE', deleted, null, null],
          ['created', null, null, null, null],
        ],
      );
    });

    it("an event pointing at another project's object shows it as deleted (defence in depth)", async () => {
      // As if the id had been given again: the public project's event names the private milestone.
      const forged = await a.fx.event({
        projectId: pub,
        authorId: a.ids.alice!,
        action: 'closed',
        targetType: 'Milestone',
        targetId: secret,
        createdAt: a.server.clock.now(),
      });
      const shown = (await milestoneEvents()).find((e) => e.id === forged.id);
      assert.deepEqual(
        shown && [shown.action_name, shown.target_id, shown.target_iid, shown.target_title],
        ['closed', secret, secret, null],
      );
      const views = await anonymousViews();
      for (const [face, text] of Object.entries(views)) {
        assert.ok(!text.includes(SECRET), `${face} shows the private title`);
      }
      assert.ok(!views.graphql.includes(`"projectId":${priv}`), views.graphql);
      // The owner reads both projects, and still sees no private title on the public event.
      const owned = await raw(
        a.server.url,
        TARGETS,
        { path: 'alice/public' },
        {
          token: a.tokens.alice!,
        },
      );
      assert.ok(!JSON.stringify(owned.body).includes(SECRET), JSON.stringify(owned.body));
      const mine = await api(a.server, 'GET', `/projects/${pub}/events`, a.tokens.alice);
      assert.ok(!JSON.stringify(mine.body).includes(SECRET), JSON.stringify(mine.body));
      // Its own project's events still name it.
      const own = await api(a.server, 'GET', `/projects/${priv}/events`, a.tokens.alice);
      assert.deepEqual(
        (own.body as Record<string, unknown>[]).map((e) => [e.action_name, e.target_title]),
        [
          ['opened', SECRET],
          ['created', null],
        ],
      );
    });
  });
}

describe('migration 020 on a SQLite database made by the migrations before it', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pulsegate-020-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every row, index and trigger, and never gives a freed id again', async () => {
    const conn = await openDatabase(`sqlite:${join(dir, 'old.db')}`);
    try {
      const db = conn.db as unknown as Kysely<unknown>;
      const upTo = migrationIndex('020_never_reuse_ids');
      assert.ok(upTo > 0);
      const first = await applyFirst(conn, upTo);
      assert.equal(first.error, undefined);

      await sql`INSERT INTO users (id, username, name, email, created_at) VALUES
        (1, 'alice', 'Alice', 'a@example.com', 1), (2, 'bob', 'Bob', 'b@example.com', 1),
        (3, 'gone', 'Gone', 'g@example.com', 1)`.execute(db);
      await sql`INSERT INTO projects (id, namespace, path, full_path, name, visibility, creator_id, created_at)
        VALUES (8, 'alice', 'pub', 'alice/pub', 'pub', 'public', 1, 1),
               (10, 'alice', 'priv', 'alice/priv', 'priv', 'private', 1, 1)`.execute(db);
      await sql`INSERT INTO project_members (project_id, user_id, access_level) VALUES (8, 1, 50), (10, 1, 50)`.execute(
        db,
      );
      await sql`INSERT INTO milestones (id, project_id, iid, title, created_at) VALUES
        (1, 8, 1, 'kept', 1), (2, 8, 2, 'deleted', 1)`.execute(db);
      await sql`INSERT INTO issues (id, project_id, iid, title, author_id, state, created_at, confidential, milestone_id)
        VALUES (1, 8, 1, 'open', 1, 'opened', 1, 0, 1), (2, 8, 2, 'hidden', 2, 'opened', 1, 1, null)`.execute(
        db,
      );
      await sql`INSERT INTO merge_requests (id, project_id, iid, title, author_id, state, created_at, source_branch, target_branch)
        VALUES (1, 8, 1, 'mr', 1, 'opened', 1, 'feature', 'main')`.execute(db);
      await sql`INSERT INTO notes (id, project_id, author_id, body, noteable_type, noteable_id, created_at, updated_at)
        VALUES (1, 8, 2, 'hello', 'Issue', 2, 1, 1)`.execute(db);
      await sql`INSERT INTO snippets (id, project_id, title, author_id, visibility, created_at)
        VALUES (1, 8, 'snip', 1, 'public', 1)`.execute(db);
      await sql`INSERT INTO events (id, project_id, author_id, action, target_type, target_id, issue_id, created_at) VALUES
        (1, 8, 1, 1, 'Milestone', 2, null, 1), (2, 8, 1, 10, 'Milestone', 2, null, 2),
        (3, 8, 2, 1, 'Issue', 2, 2, 3), (4, 8, 2, 6, 'Note', 1, 2, 4), (5, 8, 1, 5, null, null, null, 5),
        (6, 8, 1, 8, 'User', 3, null, 6)`.execute(db);
      await sql`INSERT INTO push_event_payloads (event_id, action, ref_type, ref, commit_count, commits)
        VALUES (5, 'pushed', 'branch', 'main', 0, '[]')`.execute(db);
      await sql`INSERT INTO project_hooks (id, project_id, url, created_at) VALUES
        (1, 8, 'http://example.test/a', 1), (2, 8, 'http://example.test/b', 1)`.execute(db);
      await sql`INSERT INTO webhook_deliveries (id, hook_id, event_id, event_header, trigger, event_uuid,
          idempotency_key, payload, status, next_attempt_at, created_at) VALUES
        (1, 1, 3, 'Issue Hook', 'issues_events', 'u1', 'k1', '{}', 'pending', 1, 1),
        (2, 2, 7, 'Issue Hook', 'issues_events', 'u2', 'k2', '{}', 'delivered', 1, 1)`.execute(db);
      // The newest of several rows gone before the migration: their ids are still pointed at.
      await sql`DELETE FROM milestones WHERE id = 2`.execute(db);
      await sql`DELETE FROM users WHERE id = 3`.execute(db);
      await sql`DELETE FROM events WHERE id = 7`.execute(db);
      const rowsBefore = await everyRow(db);
      const schemaBefore = await schemaEntries(db);

      // Up to 021 only: later migrations change these tables' columns on purpose.
      const through = migrationIndex('021_state_uniqueness') + 1;
      const second = await applyFirst(conn, through);
      assert.equal(second.error, undefined);
      assert.deepEqual(
        second.results?.map((r) => [r.migrationName, r.status]),
        MIGRATIONS.slice(upTo, through).map((m) => [m.name, 'Success']),
      );

      assert.deepEqual(await everyRow(db), rowsBefore);
      const schemaAfter = await schemaEntries(db);
      for (const [name, text] of schemaBefore) {
        const now = schemaAfter.get(name);
        assert.ok(now !== undefined, `${name} is gone`);
        assert.equal(now.replace(' autoincrement', ''), text, name);
      }
      assert.deepEqual((await sql`PRAGMA foreign_key_check`.execute(db)).rows, []);
      assert.deepEqual((await sql`PRAGMA integrity_check`.execute(db)).rows, [
        { integrity_check: 'ok' },
      ]);

      // Freed ids, and those that events and deliveries still point to, are not given again.
      const next = async (insert: string) =>
        (await sql.raw<{ id: number }>(insert).execute(db)).rows[0]!.id;
      assert.equal(
        await next(
          `INSERT INTO milestones (project_id, iid, title, created_at) VALUES (10, 1, 'new', 1) RETURNING id`,
        ),
        3,
      );
      assert.equal(
        await next(
          `INSERT INTO users (username, name, email, created_at) VALUES ('carol', 'Carol', 'c@example.com', 1) RETURNING id`,
        ),
        4,
      );
      assert.equal(
        await next(
          `INSERT INTO events (project_id, author_id, action, created_at) VALUES (8, 1, 1, 9) RETURNING id`,
        ),
        8,
      );
      await sql`DELETE FROM events WHERE id = 8`.execute(db);
      assert.equal(
        await next(
          `INSERT INTO events (project_id, author_id, action, created_at) VALUES (8, 1, 1, 9) RETURNING id`,
        ),
        9,
      );
      // Dropping a hook still deletes its deliveries (the cascade survived the rebuild).
      await sql`DELETE FROM project_hooks WHERE id = 2`.execute(db);
      const left = await sql<{ id: number }>`SELECT id FROM webhook_deliveries`.execute(db);
      assert.deepEqual(left.rows, [{ id: 1 }]);
    } finally {
      await conn.close();
    }
  });
});

const TABLES = [
  'users',
  'projects',
  'project_members',
  'issues',
  'merge_requests',
  'milestones',
  'snippets',
  'notes',
  'events',
  'push_event_payloads',
  'project_hooks',
  'webhook_deliveries',
  'event_tallies',
  'issue_event_tallies',
  'listing_epochs',
];

async function everyRow(db: Kysely<unknown>): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    out[table] = (await sql.raw(`SELECT * FROM ${table} ORDER BY 1, 2`).execute(db)).rows;
  }
  return out;
}

/** Every table, index and trigger as SQLite keeps its definition, by name. */
async function schemaEntries(db: Kysely<unknown>): Promise<Map<string, string>> {
  const { rows } = await sql<{ name: string; sql: string }>`
    SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'kysely_%'`.execute(
    db,
  );
  return new Map(rows.map((r) => [r.name, r.sql]));
}
