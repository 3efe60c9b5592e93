/**
 * Batching: a page of events with author, project, target (and the target's author) and payload
 * costs a constant number of SQL statements, the same for 10 events as for 100.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { KyselyPlugin } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { buildServer } from '../../src/server.js';
import { ManualClock } from '../../src/services/clock.js';
import { Store, openStore } from '../../src/store/store.js';
import { EventDetailsDocument } from './generated/graphql.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, createTestDatabase } from '../helpers/server.js';
import { ENGINES, gql } from './client.js';

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`GraphQL DataLoaders (${dialect}, ${engine})`, () => {
      let url: string;
      let statements = 0;
      let close: () => Promise<void>;
      let token: string;
      let projectId: number;

      before(async () => {
        const database = await createTestDatabase(dialect);
        const plain = await openStore(database.url);
        const f = new Fixtures(plain);
        const users = [];
        for (let i = 0; i < 5; i++) users.push(await f.user(`dev${i}`));
        const owner = users[0]!;
        const project = await f.project('big/app', owner.id, 'public');
        projectId = project.id;
        await f.member(project.id, owner.id, 50);
        token = await f.token(owner.id, ['read_api']);
        // 100 events cycling through issue, merge request, note (with payload) and push targets.
        for (let i = 0; i < 100; i++) {
          const author = users[i % users.length]!;
          const createdAt = Date.UTC(2026, 0, 1) + i * 60_000;
          const kind = i % 4;
          if (kind === 0) {
            const issue = await f.issue(project.id, author.id, `Issue ${i}`);
            await f.event({
              projectId: project.id,
              authorId: author.id,
              action: 'created',
              targetType: 'Issue',
              targetId: issue.id,
              issueId: issue.id,
              createdAt,
            });
          } else if (kind === 1) {
            const mr = await f.mergeRequest(project.id, author.id, `MR ${i}`);
            await f.event({
              projectId: project.id,
              authorId: author.id,
              action: 'created',
              targetType: 'MergeRequest',
              targetId: mr.id,
              createdAt,
            });
          } else if (kind === 2) {
            const issue = await f.issue(project.id, owner.id, `Discussed ${i}`);
            const note = await f.note(
              project.id,
              author.id,
              { type: 'Issue', id: issue.id },
              `Note ${i}`,
            );
            await f.event({
              projectId: project.id,
              authorId: author.id,
              action: 'commented',
              targetType: 'Note',
              targetId: note.id,
              issueId: issue.id,
              createdAt,
            });
          } else {
            await f.event({
              projectId: project.id,
              authorId: author.id,
              action: 'pushed',
              createdAt,
              push: { commits: [{ id: 'e'.repeat(40), message: `Push ${i}` }] },
            });
          }
        }
        const counter: KyselyPlugin = {
          transformQuery: (args) => {
            statements++;
            return args.node;
          },
          transformResult: async (args) => args.result,
        };
        const store = new Store({ ...plain.conn, db: plain.db.withPlugin(counter) });
        const config = {
          ...loadConfig(
            { databaseUrl: database.url, port: 0, logLevel: 'silent', rateLimit: 0 },
            {},
          ),
          graphqlEngine: engine,
        };
        const { app } = await buildServer({
          config,
          store,
          clock: new ManualClock(Date.UTC(2026, 0, 15)),
        });
        await app.listen({ host: '127.0.0.1', port: 0 });
        const address = app.server.address() as { port: number };
        url = `http://127.0.0.1:${address.port}`;
        // The counter sees every statement of the process: let the background jobs' first run
        // (one second after start, then a minute apart) finish before anything is measured.
        await delay(1_100);
        for (let seen = -1; seen !== statements; await delay(300)) seen = statements;
        close = async () => {
          await app.close();
          await plain.close();
          await database.drop();
        };
      });
      after(() => close());

      async function count(first: number): Promise<number> {
        statements = 0;
        const res = await gql(
          url,
          EventDetailsDocument,
          { idOrPath: String(projectId), first },
          { token },
        );
        assert.equal(res.status, 200);
        assert.equal(res.body.errors, undefined);
        const nodes = res.body.data!.project!.events!.nodes;
        assert.equal(nodes.length, first);
        // Every event really carries its nested data.
        for (const node of nodes) {
          assert.ok(node.author?.username);
          assert.equal(node.project.fullPath, 'big/app');
          assert.ok(node.target || node.payload?.__typename === 'PushData');
          if (node.target && 'author' in node.target) assert.ok(node.target.author?.username);
        }
        return statements;
      }

      it('costs a small constant number of statements for 10, 50 and 100 events', async () => {
        // Warm the token and row caches with a size not measured below: each measured window is
        // fresh, so its events are really listed and hydrated.
        await count(7);
        const [ten, fifty, hundred] = [await count(10), await count(50), await count(100)];
        const counts = `counts ${ten}, ${fifty}, ${hundred}`;
        // More events never cost more statements (DataLoader ticks may move one either way).
        assert.ok(fifty <= ten + 1 && hundred <= ten + 1, counts);
        // PostgreSQL has no exact change signal, so token and project rows are not cached there.
        const bound = dialect === 'sqlite' ? 16 : 24;
        assert.ok(Math.max(ten, fifty, hundred) <= bound, `${counts}; expected at most ${bound}`);
      });
    });
  }
}
