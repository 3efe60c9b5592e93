/**
 * The GraphQL result cache, on both dialects: a repeated query is answered from the cache (on
 * SQLite with no SQL at all) until something it read changes, through this server's connection or
 * another one; a write to another project leaves it kept; a change to what events show, or an
 * append after an event read by id, does not; `pageCache: false` turns it (and REST's page cache)
 * off; the viewer's identity and scopes are part of the key; responses with errors are never kept.
 * Cache answers are read from /-/metrics, SQL reads counted with a Kysely plugin.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KyselyPlugin, SelectQueryNode } from 'kysely';
import { type GraphqlEngine, loadConfig } from '../../src/config.js';
import { encodeCursor, toGlobalId } from '../../src/graphql/ids.js';
import { buildServer } from '../../src/server.js';
import { ManualClock } from '../../src/services/clock.js';
import { Store, openStore } from '../../src/store/store.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestDialect, createTestDatabase } from '../helpers/server.js';
import { ENGINES, raw } from './client.js';

interface World {
  url: string;
  /** The server's own store (statements through it are counted). */
  fixtures: Fixtures;
  /** A second connection to the same database, as another process would write. */
  other: Store;
  projectId: number;
  /** Another private project of the owner's, with two events. */
  otherProjectId: number;
  ownerId: number;
  token: string;
  readUserToken: string;
  otherToken: string;
  statements(): number;
  close(): Promise<void>;
}

async function start(
  dialect: TestDialect,
  engine: GraphqlEngine,
  pageCache: boolean,
): Promise<World> {
  const database = await createTestDatabase(dialect);
  const plain = await openStore(database.url);
  const f = new Fixtures(plain);
  const owner = await f.user('owner');
  const outsider = await f.user('outsider');
  // Two private projects of the owner's, with three and two events.
  const ownProject = async (path: string, events: number) => {
    const made = await f.project(path, owner.id, 'private');
    await f.member(made.id, owner.id, 50);
    for (let i = 0; i < events; i++) {
      await f.event({
        projectId: made.id,
        authorId: owner.id,
        action: 'joined',
        createdAt: Date.UTC(2026, 0, 1) + i * 60_000,
      });
    }
    return made;
  };
  const project = await ownProject('team/app', 3);
  const web = await ownProject('team/web', 2);
  const token = await f.token(owner.id, ['api']);
  const readUserToken = await f.token(owner.id, ['read_user']);
  const otherToken = await f.token(outsider.id, ['api']);
  let statements = 0;
  const counter: KyselyPlugin = {
    transformQuery: (args) => {
      // Reads only: the webhook worker's claim (an UPDATE every second) and the other background
      // jobs' deletes run on their own clock and would land in a measured request now and then.
      // So does the membership-expiry job's read (a second after start, then every minute): the
      // only read ordered by `expires_at`, which no request makes.
      if (args.node.kind === 'SelectQueryNode' && !byExpiry(args.node)) statements++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const store = new Store({ ...plain.conn, db: plain.db.withPlugin(counter) });
  const config = {
    ...loadConfig({ databaseUrl: database.url, port: 0, logLevel: 'silent', rateLimit: 0 }, {}),
    graphqlEngine: engine,
    pageCache,
  };
  const { app } = await buildServer({
    config,
    store,
    clock: new ManualClock(Date.UTC(2026, 0, 15)),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  const other = await openStore(database.url);
  const url = `http://127.0.0.1:${port}`;
  // Each token's first use records it (a write); done here, so the tests measure only queries.
  for (const t of [token, readUserToken, otherToken]) {
    await raw(url, '{ currentUser { username } }', undefined, { token: t });
  }
  return {
    url,
    fixtures: new Fixtures(store),
    other,
    projectId: project.id,
    otherProjectId: web.id,
    ownerId: owner.id,
    token,
    readUserToken,
    otherToken,
    statements: () => statements,
    async close() {
      await app.close();
      await other.close();
      await plain.close();
      await database.drop();
    },
  };
}

const eventsQuery = (projectId: number) =>
  `{ project(idOrPath: "${projectId}") { events(first: 10) { totalCount nodes { databaseId } } } }`;

interface EventsData {
  project: { events: { totalCount: number; nodes: Array<{ databaseId: number }> } } | null;
}

/** The membership-expiry job's read (store/members.ts `expiring`). */
function byExpiry(node: SelectQueryNode): boolean {
  return JSON.stringify(node.orderBy ?? null).includes('"expires_at"');
}

/**
 * Sends the query; returns the body, the statements it cost and whether the result cache answered
 * it (its hit count moved; with the cache on, every query is one hit or one miss).
 */
async function ask(world: World, query: string, token = world.token) {
  const lookups = await resultLookups(world);
  const before = world.statements();
  const res = await raw<EventsData>(world.url, query, undefined, { token });
  assert.equal(res.status, 200);
  const cost = world.statements() - before;
  const after = await resultLookups(world);
  assert.ok(after.hit + after.miss <= lookups.hit + lookups.miss + 1, 'one lookup at most');
  return { body: res.body, cost, kept: after.hit === lookups.hit + 1 };
}

/** The result cache's hits and misses so far (from /-/metrics). */
async function resultLookups(world: World): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${world.url}/-/metrics`)).text();
  const count = (result: string) =>
    Number(
      new RegExp(
        `^pulsegate_cache_lookups_total\\{cache="graphql_result",result="${result}"\\} (\\d+)$`,
        'm',
      ).exec(text)?.[1] ?? 0,
    );
  return { hit: count('hit'), miss: count('miss') };
}

async function addEvent(store: Store, world: World, minute: number, projectId = world.projectId) {
  await new Fixtures(store).event({
    projectId,
    authorId: world.ownerId,
    action: 'joined',
    createdAt: Date.UTC(2026, 0, 2) + minute * 60_000,
  });
}

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`GraphQL result cache (${dialect}, ${engine})`, () => {
      let world: World;
      before(async () => {
        world = await start(dialect, engine, true);
      });
      after(() => world.close());

      it('answers a repeated query without SQL until a write by any connection', async () => {
        const query = eventsQuery(world.projectId);
        const first = await ask(world, query);
        assert.equal(first.body.data!.project!.events!.totalCount, 3);
        assert.ok(first.cost > 0, 'the first answer is computed');
        // Kept answers cost no SQL on SQLite. PostgreSQL reads its row caches' counter once per
        // request, so a background job's write makes a token's row be read again now and then.
        const fromCache = (answer: { cost: number; kept: boolean }, message: string) => {
          assert.ok(answer.kept, message);
          if (dialect === 'sqlite') assert.equal(answer.cost, 0, message);
        };
        const second = await ask(world, query);
        fromCache(second, 'the repeated answer comes from the cache');
        assert.deepEqual(second.body, first.body);

        // A write through the server's own connection.
        await addEvent(world.fixtures.store, world, 1);
        const third = await ask(world, query);
        assert.ok(!third.kept && third.cost > 0);
        assert.equal(third.body.data!.project!.events!.totalCount, 4);
        fromCache(await ask(world, query), 'kept again');

        // A write by another connection (another process would look the same).
        await addEvent(world.other, world, 2);
        const fourth = await ask(world, query);
        assert.ok(!fourth.kept && fourth.cost > 0);
        assert.equal(fourth.body.data!.project!.events!.totalCount, 5);
        assert.deepEqual(
          fourth.body.data!.project!.events!.nodes.length,
          5,
          'the new event is listed, not only counted',
        );
      });

      it('keeps an answer about one project while another project is written', async () => {
        const web = eventsQuery(world.otherProjectId);
        const first = await ask(world, web);
        assert.equal(first.body.data!.project!.events!.totalCount, 2);
        const app = eventsQuery(world.projectId);
        const appBefore = await ask(world, app);

        // Another process appends to the app project only.
        await addEvent(world.other, world, 10);
        const again = await ask(world, web);
        assert.deepEqual(again.body, first.body);
        assert.ok(again.kept, 'the web answer was kept');

        // The app project's answer is computed again and lists the new event.
        const app2 = await ask(world, app);
        assert.ok(!app2.kept && app2.cost > 0);
        const appTotal = appBefore.body.data!.project!.events!.totalCount;
        assert.equal(app2.body.data!.project!.events!.totalCount, appTotal + 1);
        assert.equal(app2.body.data!.project!.events!.nodes.length, Math.min(10, appTotal + 1));
      });

      it('computes an answer again when what it shows changes, with or without events', async () => {
        // One answer through a listing (its events' author), one with no listing at all.
        const listed = `{ project(idOrPath: "${world.otherProjectId}") { events(first: 1) { nodes { author { username } } } } }`;
        const direct = `{ user(id: "${world.ownerId}") { username } }`;
        const names = async () => {
          const viaEvents = await ask(world, listed);
          const viaUser = await ask(world, direct);
          const events = viaEvents.body.data as unknown as {
            project: { events: { nodes: Array<{ author: { username: string } }> } };
          };
          const user = viaUser.body.data as unknown as { user: { username: string } };
          return {
            names: [events.project.events.nodes[0]!.author.username, user.user.username],
            kept: [viaEvents.kept, viaUser.kept],
          };
        };
        assert.deepEqual(await names(), { names: ['owner', 'owner'], kept: [false, false] });
        assert.deepEqual(await names(), { names: ['owner', 'owner'], kept: [true, true] });
        // A rename by another process: no event is written, the listing version moves.
        await world.other.db
          .updateTable('users')
          .set({ username: 'owner2' })
          .where('id', '=', world.ownerId)
          .execute();
        try {
          assert.deepEqual(await names(), { names: ['owner2', 'owner2'], kept: [false, false] });
        } finally {
          await world.other.db
            .updateTable('users')
            .set({ username: 'owner' })
            .where('id', '=', world.ownerId)
            .execute();
        }
        assert.deepEqual(await names(), { names: ['owner', 'owner'], kept: [false, false] });
      });

      it('computes an answer that read an event by id again after any append', async () => {
        // The id the next event will take: not found now, found once it is written.
        const newest = Number(
          (
            await world.other.db
              .selectFrom('events')
              .select((eb) => eb.fn.max('id').as('id'))
              .executeTakeFirstOrThrow()
          ).id,
        );
        const query = `{ node(id: "${toGlobalId('Event', newest + 1)}") { ... on Event { databaseId } } }`;
        const node = async () => {
          const { body, kept } = await ask(world, query);
          return { node: (body.data as unknown as { node: unknown }).node, kept };
        };
        assert.deepEqual(await node(), { node: null, kept: false });
        assert.deepEqual(await node(), { node: null, kept: true });
        await addEvent(world.other, world, 20, world.otherProjectId);
        assert.deepEqual(await node(), { node: { databaseId: newest + 1 }, kept: false });
      });

      it('keys on the viewer and the token scopes', async () => {
        const query = eventsQuery(world.projectId);
        const owner = await ask(world, query);
        assert.ok(owner.body.data!.project);
        // The same text from a non-member of the private project: not found, not the owner's page.
        const outsider = await raw(world.url, query, undefined, { token: world.otherToken });
        assert.equal(outsider.body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
        // The owner's read_user token may not read projects at all.
        const narrow = await raw(world.url, query, undefined, { token: world.readUserToken });
        assert.equal(narrow.body.errors?.[0]?.extensions?.code, 'FORBIDDEN');
        // Anonymous callers do not see the private project either.
        const anonymous = await raw(world.url, query);
        assert.equal(anonymous.body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
      });

      it('never keeps a response with errors', async () => {
        // `hasPreviousPage` after a cursor asks the database each time it is computed.
        const cursor = encodeCursor(2 ** 31 - 1);
        const page = `a: project(idOrPath: "${world.projectId}") {
        events(first: 1, after: "${cursor}") { pageInfo { hasPreviousPage } } }`;
        const clean = `{ ${page} }`;
        const failing = `{ ${page} b: project(idOrPath: "999999") { id } }`;
        // Control: without errors the second answer is kept.
        const control = await ask(world, clean);
        assert.equal(control.body.errors, undefined);
        assert.ok(!control.kept);
        assert.ok((await ask(world, clean)).kept, 'an answer without errors is kept');

        const first = await ask(world, failing);
        assert.equal(
          (first.body as { errors?: Array<{ extensions: { code: string } }> }).errors?.[0]
            ?.extensions.code,
          'NOT_FOUND',
        );
        const second = await ask(world, failing);
        assert.deepEqual(second.body, first.body);
        assert.ok(!second.kept && second.cost > 0, 'a response with errors is computed again');
      });
    });
  }
}

describe('GraphQL result cache: pageCache false (sqlite)', () => {
  let world: World;
  before(async () => {
    world = await start('sqlite', 'mercurius', false);
  });
  after(() => world.close());

  it('computes every GraphQL answer and every REST page again', async () => {
    const query = eventsQuery(world.projectId);
    const first = await ask(world, query);
    const second = await ask(world, query);
    assert.deepEqual(second.body, first.body);
    // The window is listed and hydrated again (the count and row caches stay on).
    assert.ok(second.cost > 0, `the repeated query cost ${second.cost} statements`);

    const page = async () => {
      const before = world.statements();
      const res = await fetch(`${world.url}/api/v4/projects/${world.projectId}/events`, {
        headers: { 'private-token': world.token },
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as unknown[]).length, 3);
      return world.statements() - before;
    };
    await page();
    assert.ok((await page()) > 0, 'REST lists the page again');
  });
});

describe('pageCache configuration', () => {
  it('is on by default; PULSEGATE_PAGE_CACHE and the flag input turn it off, the flag first', () => {
    const url = 'sqlite::memory:';
    assert.equal(loadConfig({ databaseUrl: url }, {}).pageCache, true);
    assert.equal(
      loadConfig({ databaseUrl: url }, { PULSEGATE_PAGE_CACHE: 'false' }).pageCache,
      false,
    );
    assert.equal(loadConfig({ databaseUrl: url }, { PULSEGATE_PAGE_CACHE: '0' }).pageCache, false);
    assert.equal(loadConfig({ databaseUrl: url }, { PULSEGATE_PAGE_CACHE: '1' }).pageCache, true);
    assert.equal(
      loadConfig({ databaseUrl: url, pageCache: false }, { PULSEGATE_PAGE_CACHE: 'true' })
        .pageCache,
      false,
    );
  });
});
