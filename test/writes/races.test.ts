/**
 * Parallel state changes have one winner: one state change, one event, one webhook delivery, and
 * the losers get GitLab's answer for the state they find. Each scenario runs 10 rounds, on SQLite
 * (one server) and on PostgreSQL with two server processes over one database, the requests of a
 * round split between them.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { actionCode } from '../../src/domain/vocabulary.js';
import type { Action } from '../../src/domain/vocabulary.js';
import { type Kysely, sql } from 'kysely';
import { isUniqueViolation } from '../../src/store/constraint-errors.js';
import { openDatabase } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { type Store, openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type HttpResult, call } from '../helpers/http.js';
import { applyFirst, migrationIndex } from '../helpers/migrations.js';
import { ready, spawnServe } from '../helpers/serve-process.js';
import { DIALECTS, type TestDialect, createTestDatabase, startServer } from '../helpers/server.js';

const ROUNDS = 10;

interface Setup {
  /** The servers a round's requests are spread over (the same one twice on SQLite). */
  urls: string[];
  store: Store;
  token: string;
  projectId: number;
  close(): Promise<void>;
}

async function setUp(dialect: TestDialect): Promise<Setup> {
  const seed = async (store: Store) => {
    const f = new Fixtures(store);
    const alice = await f.user('alice');
    return { token: await f.token(alice.id, ['api']) };
  };
  if (dialect === 'sqlite') {
    let token = '';
    const server = await startServer({
      dialect,
      seed: async (store) => {
        ({ token } = await seed(store));
      },
    });
    return {
      urls: [server.url, server.url],
      store: server.store,
      token,
      projectId: await project(server.url, token),
      close: () => server.close(),
    };
  }
  const database = await createTestDatabase(dialect);
  const store = await openStore(database.url);
  const { token } = await seed(store);
  const children: ChildProcess[] = [];
  const urls: string[] = [];
  for (let i = 0; i < 2; i++) {
    const { child, url } = await spawnServe(database.url, [], { PULSEGATE_RATE_LIMIT: '0' });
    children.push(child);
    urls.push(url);
  }
  await Promise.all(urls.map((url) => ready(url)));
  return {
    urls,
    store,
    token,
    projectId: await project(urls[0]!, token),
    async close() {
      for (const child of children) child.kill('SIGKILL');
      await store.close();
      await database.drop();
    },
  };
}

/** A project of alice's with a hook on its issue and merge request events. */
async function project(url: string, token: string): Promise<number> {
  const made = await send(url, token, 'POST', '/projects', { name: 'race', visibility: 'public' });
  assert.equal(made.status, 201, made.text);
  const id = (made.body as { id: number }).id;
  const hook = await send(url, token, 'POST', `/projects/${id}/hooks`, {
    url: 'http://hooks.example.com/race',
    issues_events: true,
    merge_requests_events: true,
  });
  assert.equal(hook.status, 201, hook.text);
  return id;
}

function send(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<HttpResult> {
  return call(url, `/api/v4${path}`, {
    method,
    headers: {
      'PRIVATE-TOKEN': token,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** Answers sorted by status, the body of each as text (a loser's body is compared exactly). */
function byStatus(results: HttpResult[]): HttpResult[] {
  return [...results].sort((x, y) => x.status - y.status);
}

for (const dialect of DIALECTS) {
  describe(`parallel state changes have one winner (${dialect})`, () => {
    let s: Setup;
    /** `n` requests at once, spread over the servers. */
    const together = (n: number, method: string, path: string, body?: unknown) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          send(s.urls[i % s.urls.length]!, s.token, method, path, body),
        ),
      );
    const create = async (path: string, body: unknown) => {
      const res = await send(s.urls[0]!, s.token, 'POST', `/projects/${s.projectId}${path}`, body);
      assert.equal(res.status, 201, res.text);
      return res.body as { id: number; iid: number };
    };
    /** The events `action` on a target, and the webhook deliveries of those events. */
    const recorded = async (targetType: string, targetId: number, action: Action) => {
      const events = await s.store.db
        .selectFrom('events')
        .select('id')
        .where('target_type', '=', targetType)
        .where('target_id', '=', targetId)
        .where('action', '=', actionCode(action))
        .execute();
      const ids = events.map((e) => e.id);
      const deliveries =
        ids.length === 0
          ? []
          : await s.store.db
              .selectFrom('webhook_deliveries')
              .select('event_uuid')
              .where('event_id', 'in', ids)
              .execute();
      return { events: ids.length, deliveries: deliveries.length };
    };

    before(async () => {
      s = await setUp(dialect);
    });
    after(() => s.close());

    it('two parallel merges: one merges, the other gets 405', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const mr = await create('/merge_requests', {
          source_branch: `merge-${round}`,
          target_branch: 'main',
          title: `Merge ${round}`,
        });
        const path = `/projects/${s.projectId}/merge_requests/${mr.iid}/merge`;
        const [won, lost] = byStatus(await together(2, 'PUT', path));
        assert.equal(won!.status, 200, won!.text);
        assert.equal((won!.body as { state: string }).state, 'merged');
        const again = await send(s.urls[0]!, s.token, 'PUT', path);
        assert.equal(again.status, 405);
        assert.equal(lost!.status, 405, lost!.text);
        assert.deepEqual(lost!.body, again.body);
        assert.deepEqual(await recorded('MergeRequest', mr.id, 'merged'), {
          events: 1,
          deliveries: 1,
        });
      }
    });

    it('two parallel closes: both answer 200 closed, one "closed" event', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const issue = await create('/issues', { title: `Close ${round}` });
        const path = `/projects/${s.projectId}/issues/${issue.iid}`;
        const answers = await together(2, 'PUT', path, { state_event: 'close' });
        for (const res of answers) {
          assert.equal(res.status, 200, res.text);
          assert.equal((res.body as { state: string }).state, 'closed');
        }
        assert.deepEqual(await recorded('Issue', issue.id, 'closed'), {
          events: 1,
          deliveries: 1,
        });
      }
    });

    it('two parallel merge requests on the same branches: one opens, the other gets 409', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const body = {
          source_branch: `same-${round}`,
          target_branch: 'main',
          title: `Same ${round}`,
        };
        const [won, lost] = byStatus(
          await together(2, 'POST', `/projects/${s.projectId}/merge_requests`, body),
        );
        assert.equal(won!.status, 201, won!.text);
        const winner = won!.body as { id: number; iid: number };
        assert.equal(lost!.status, 409, lost!.text);
        assert.deepEqual(lost!.body, {
          message: [
            `Another open merge request already exists for this source branch: !${winner.iid}`,
          ],
        });
        const open = await s.store.db
          .selectFrom('merge_requests')
          .select('id')
          .where('source_branch', '=', body.source_branch)
          .execute();
        assert.deepEqual(open, [{ id: winner.id }]);
        assert.deepEqual(await recorded('MergeRequest', winner.id, 'created'), {
          events: 1,
          deliveries: 1,
        });
      }
    });

    it('reopening a merge request meets the same rule: 409 naming the open one', async () => {
      const mr = (title: string) =>
        create('/merge_requests', { source_branch: 'reopen', target_branch: 'main', title });
      const first = await mr('First');
      const path = `/projects/${s.projectId}/merge_requests/${first.iid}`;
      const closed = await send(s.urls[0]!, s.token, 'PUT', path, { state_event: 'close' });
      assert.equal(closed.status, 200, closed.text);
      const second = await mr('Second');
      const reopen = await send(s.urls[0]!, s.token, 'PUT', path, { state_event: 'reopen' });
      assert.equal(reopen.status, 409, reopen.text);
      assert.deepEqual(reopen.body, {
        message: [
          `Another open merge request already exists for this source branch: !${second.iid}`,
        ],
      });
      const retitled = await send(s.urls[0]!, s.token, 'PUT', path, { title: 'Renamed' });
      assert.equal(retitled.status, 200, retitled.text);
      assert.equal((retitled.body as { state: string }).state, 'closed');
    });

    it('two parallel milestones with one title: one is made, the other gets 400', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const title = `Release ${round}`;
        const [won, lost] = byStatus(
          await together(2, 'POST', `/projects/${s.projectId}/milestones`, { title }),
        );
        assert.equal(won!.status, 201, won!.text);
        assert.equal(lost!.status, 400, lost!.text);
        assert.deepEqual(lost!.body, {
          message: { title: ['already being used for another group or project milestone.'] },
        });
        const rows = await s.store.db
          .selectFrom('milestones')
          .select('id')
          .where('title', '=', title)
          .execute();
        assert.deepEqual(rows, [{ id: (won!.body as { id: number }).id }]);
        assert.deepEqual((await recorded('Milestone', rows[0]!.id, 'created')).events, 1);
      }
    });

    it('five parallel deletes of a milestone: one deletes it, four get 404', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const milestone = await create('/milestones', { title: `Doomed ${round}` });
        const answers = byStatus(
          await together(5, 'DELETE', `/projects/${s.projectId}/milestones/${milestone.id}`),
        );
        assert.deepEqual(
          answers.map((r) => r.status),
          [204, 404, 404, 404, 404],
        );
        for (const lost of answers.slice(1)) {
          assert.deepEqual(lost.body, { message: '404 Milestone Not Found' });
        }
        assert.equal((await recorded('Milestone', milestone.id, 'destroyed')).events, 1);
      }
    });

    it('five parallel deletes of a hook: one deletes it, four get 404', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const hook = await create('/hooks', { url: `http://hooks.example.com/${round}` });
        const answers = byStatus(
          await together(5, 'DELETE', `/projects/${s.projectId}/hooks/${hook.id}`),
        );
        assert.deepEqual(
          answers.map((r) => r.status),
          [204, 404, 404, 404, 404],
        );
        for (const lost of answers.slice(1)) {
          assert.deepEqual(lost.body, { message: '404 Hook Not Found' });
        }
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`migration 021 on a database with rows breaking the new rules (${dialect})`, () => {
    it('keeps the oldest as it was, closes later open duplicates, renames later titles', async () => {
      const database = await createTestDatabase(dialect);
      const conn = await openDatabase(database.url);
      try {
        const db = conn.db as unknown as Kysely<unknown>;
        const first = await applyFirst(conn, migrationIndex('021_state_uniqueness'));
        assert.equal(first.error, undefined);
        await sql`INSERT INTO users (id, username, name, email, created_at)
          VALUES (1, 'alice', 'Alice', 'a@example.com', 1)`.execute(db);
        await sql`INSERT INTO projects (id, namespace, path, full_path, name, visibility, creator_id, created_at)
          VALUES (1, 'alice', 'a', 'alice/a', 'a', 'public', 1, 1),
                 (2, 'alice', 'b', 'alice/b', 'b', 'public', 1, 1)`.execute(db);
        await sql`INSERT INTO merge_requests (id, project_id, iid, title, author_id, state, created_at, source_branch, target_branch)
          VALUES (1, 1, 1, 'first', 1, 'opened', 1, 'f', 'main'),
                 (2, 1, 2, 'second', 1, 'opened', 2, 'f', 'main'),
                 (3, 1, 3, 'third', 1, 'opened', 3, 'f', 'main'),
                 (4, 1, 4, 'old closed', 1, 'closed', 4, 'f', 'main'),
                 (5, 1, 5, 'elsewhere', 1, 'opened', 5, 'f', 'dev'),
                 (6, 2, 1, 'other project', 1, 'opened', 6, 'f', 'main'),
                 (7, 1, 6, 'imported', 1, 'opened', 7, '', ''),
                 (8, 1, 7, 'imported too', 1, 'opened', 8, '', '')`.execute(db);
        await sql`INSERT INTO milestones (id, project_id, iid, title, created_at) VALUES
          (1, 1, 1, 'v1', 1), (2, 1, 2, 'v1', 1), (3, 1, 3, 'v2', 1), (4, 1, 4, 'v1', 1),
          (5, 2, 1, 'v1', 1)`.execute(db);

        await migrate(conn);

        const mrs = await sql<{ id: number; state: string; title: string }>`
          SELECT id, state, title FROM merge_requests ORDER BY id`.execute(db);
        assert.deepEqual(
          mrs.rows.map((r) => [Number(r.id), r.state, r.title]),
          [
            [1, 'opened', 'first'],
            [2, 'closed', 'second'],
            [3, 'closed', 'third'],
            [4, 'closed', 'old closed'],
            [5, 'opened', 'elsewhere'],
            [6, 'opened', 'other project'],
            // Imported without branches: not known to be the same request.
            [7, 'opened', 'imported'],
            [8, 'opened', 'imported too'],
          ],
        );
        const milestones = await sql<{ id: number; title: string }>`
          SELECT id, title FROM milestones ORDER BY id`.execute(db);
        assert.deepEqual(
          milestones.rows.map((r) => [Number(r.id), r.title]),
          [
            [1, 'v1'],
            [2, 'v1 (2)'],
            [3, 'v2'],
            [4, 'v1 (4)'],
            [5, 'v1'],
          ],
        );
        // The rules now hold whoever writes.
        for (const statement of [
          sql`UPDATE merge_requests SET state = 'opened' WHERE id = 2`,
          sql`INSERT INTO milestones (project_id, iid, title, created_at) VALUES (1, 5, 'v2', 1)`,
        ]) {
          await assert.rejects(statement.execute(db), (error) => isUniqueViolation(error));
        }
      } finally {
        await conn.close();
        await database.drop();
      }
    });
  });
}
