/**
 * A small instance to find one's way in: users of every kind, personal and group projects of
 * every visibility, issues (one confidential) and merge requests, and some events.
 *
 * - alice: owns `alice/rocket` (public) and `alice/notes` (private), and `acme/platform`
 *   (public; bob is its Developer). Owning a project in `acme` makes `acme` hers to create in.
 * - bob: owns `acme/tools/cli` (private, in the subgroup `acme/tools`), a Guest of `alice/notes`
 *   (where alice has a merge request a Guest may not see).
 * - carol: private profile, owns `zeta/vault` (internal).
 * - dave: blocked. root: administrator. erin: signed in, member of nothing.
 */
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import type { Config } from '../../src/config.js';
import { Fixtures } from './fixtures.js';
import { type TestDialect, type TestServer, startServer } from './server.js';

export interface NavigationWorld {
  server: TestServer;
  fx: Fixtures;
  users: Record<'alice' | 'bob' | 'carol' | 'dave' | 'root' | 'erin', number>;
  projects: Record<'rocket' | 'notes' | 'platform' | 'cli' | 'vault', number>;
  /** Tokens with scope `api`. */
  tokens: Record<'alice' | 'bob' | 'carol' | 'root' | 'erin', string>;
  issues: Record<'open' | 'confidential' | 'privateNote' | 'platform', number>;
  mergeRequests: Record<'rocket' | 'cli' | 'notes', number>;
}

export async function startNavigationWorld(
  dialect: TestDialect,
  config: Partial<Config> = {},
): Promise<NavigationWorld> {
  let world: Omit<NavigationWorld, 'server' | 'fx'> | undefined;
  const server = await startServer({
    dialect,
    config,
    seed: async (store) => {
      const f = new Fixtures(store);
      const alice = (await f.user('alice')).id;
      const bob = (await f.user('bob')).id;
      const carol = (await f.user('carol', { privateProfile: true })).id;
      const dave = (await f.user('dave', { state: 'blocked' })).id;
      const root = (await f.user('root', { admin: true })).id;
      const erin = (await f.user('erin', { name: 'Erin Rocketeer' })).id;
      const rocket = (await f.project('alice/rocket', alice, 'public')).id;
      const notes = (await f.project('alice/notes', alice, 'private')).id;
      const platform = (await f.project('acme/platform', alice, 'public')).id;
      const cli = (await f.project('acme/tools/cli', bob, 'private')).id;
      const vault = (await f.project('zeta/vault', carol, 'internal')).id;
      const { owner, developer, guest } = ACCESS_LEVELS;
      await f.member(rocket, alice, owner);
      await f.member(notes, alice, owner);
      await f.member(notes, bob, guest);
      await f.member(platform, alice, owner);
      await f.member(platform, bob, developer);
      await f.member(cli, bob, owner);
      await f.member(vault, carol, owner);
      const open = (await f.issue(rocket, bob, 'Rocket wobbles')).id;
      const confidential = (await f.issue(rocket, alice, 'Launch codes', true)).id;
      const privateNote = (await f.issue(notes, alice, 'Shopping list')).id;
      const platformIssue = (await f.issue(platform, bob, 'Platform is slow')).id;
      const mrRocket = (await f.mergeRequest(rocket, bob, 'Fix the wobble')).id;
      const mrCli = (await f.mergeRequest(cli, bob, 'Add a flag')).id;
      const mrNotes = (await f.mergeRequest(notes, alice, 'Tidy the list')).id;
      let at = Date.UTC(2026, 0, 2);
      const event = async (projectId: number, authorId: number, targetId: number) =>
        f.event({
          projectId,
          authorId,
          action: 'created',
          targetType: 'Issue',
          targetId,
          issueId: targetId,
          createdAt: (at += 60_000),
        });
      await event(rocket, bob, open);
      await event(platform, bob, platformIssue);
      await event(notes, alice, privateNote);
      await f.event({
        projectId: vault,
        authorId: carol,
        action: 'joined',
        createdAt: (at += 60_000),
      });
      world = {
        users: { alice, bob, carol, dave, root, erin },
        projects: { rocket, notes, platform, cli, vault },
        tokens: {
          alice: await f.token(alice, ['api']),
          bob: await f.token(bob, ['api']),
          carol: await f.token(carol, ['api']),
          root: await f.token(root, ['api']),
          erin: await f.token(erin, ['api']),
        },
        issues: { open, confidential, privateNote, platform: platformIssue },
        mergeRequests: { rocket: mrRocket, cli: mrCli, notes: mrNotes },
      };
    },
  });
  return { ...world!, server, fx: new Fixtures(server.store) };
}
