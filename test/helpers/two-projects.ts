import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import type { Store } from '../../src/store/store.js';
import type { Config } from '../../src/config.js';
import { Fixtures } from './fixtures.js';
import { countListingQueries } from './listing-queries.js';
import { type TestDialect, type TestServer, startServer } from './server.js';

export interface TwoProjects {
  ids: { alice: number; bob: number; pub: number; priv: number };
  tokens: { alice: string; bob: string };
}

export interface TwoProjectsOptions {
  /** `created` events of alice's in each project, created at 1, 2, … (1 by default). */
  events?: number;
  /** The scopes of alice's token (`api` by default) and of bob's (`read_api`). */
  scopes?: { alice?: string[]; bob?: string[] };
}

/**
 * Alice owns a public project (acme/api) and a private one (acme/secret), each with `events`
 * `created` events of hers; bob is a member of neither. The shape the list and live tests need:
 * what a member, an outsider and anonymous see differs.
 */
export async function seedTwoProjects(
  store: Store,
  { events = 1, scopes = {} }: TwoProjectsOptions = {},
): Promise<TwoProjects> {
  const f = new Fixtures(store);
  const alice = await f.user('alice');
  const bob = await f.user('bob');
  const pub = (await f.project('acme/api', alice.id, 'public')).id;
  const priv = (await f.project('acme/secret', alice.id, 'private')).id;
  await f.member(pub, alice.id, ACCESS_LEVELS.owner);
  await f.member(priv, alice.id, ACCESS_LEVELS.owner);
  const tokens = {
    alice: await f.token(alice.id, scopes.alice ?? ['api']),
    bob: await f.token(bob.id, scopes.bob ?? ['read_api']),
  };
  for (let i = 1; i <= events; i++) {
    for (const projectId of [pub, priv]) {
      await f.event({ projectId, authorId: alice.id, action: 'created', createdAt: i });
    }
  }
  return { ids: { alice: alice.id, bob: bob.id, pub, priv }, tokens };
}

/**
 * A server over `seedTwoProjects`, with fixtures over its store and a counter of the listing
 * queries it runs from then on (a 304 or a kept response runs none).
 */
export async function startTwoProjects(
  dialect: TestDialect,
  config: Partial<Config>,
  events: number,
): Promise<TwoProjects & { server: TestServer; f: Fixtures; listings: () => number }> {
  let seeded: TwoProjects | undefined;
  const server = await startServer({
    dialect,
    config,
    seed: async (store) => {
      seeded = await seedTwoProjects(store, { events });
    },
  });
  return {
    ...seeded!,
    server,
    f: new Fixtures(server.store),
    listings: countListingQueries(server.store),
  };
}
