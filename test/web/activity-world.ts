/**
 * The activity pages' scenario: acme/platform/api (public, nested groups) with one event of every
 * tab, acme/secret (private: alice owns it, bob is not a member), acme/busy (45 pushes for
 * paging), carol with a private profile. Events are written through the store (Fixtures), as the
 * lead's REST writes are not on main yet.
 */
import type { Config } from '../../src/config.js';
import { hashPassword } from '../../src/domain/secrets.js';
import type { UserRow } from '../../src/store/schema.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type HttpResult, rawGet } from '../helpers/http.js';
import { type TestDialect, type TestServer, startServer } from '../helpers/server.js';
import { Browser, PASSWORD } from '../oauth/support.js';

export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

export interface ActivityWorld {
  server: TestServer;
  fixtures: Fixtures;
  alice: UserRow;
  bob: UserRow;
  carol: UserRow;
  api: number;
  secret: number;
  busy: number;
  /** Event ids by name. */
  ids: Record<string, number>;
  /** acme/busy's event ids, newest first. */
  busyIds: number[];
  signIn(login: 'alice' | 'bob' | 'carol'): Promise<Browser>;
  /** A page as a browser asks for it: in `browser`'s session, or anonymously without one. */
  page(path: string, browser?: Browser): Promise<HttpResult>;
  close(): Promise<void>;
}

let passwordHash: string | undefined;

export async function startActivityWorld(
  dialect: TestDialect = 'sqlite',
  config: Partial<Config> = {},
): Promise<ActivityWorld> {
  passwordHash ??= await hashPassword(PASSWORD);
  const world = {} as ActivityWorld;
  const ids: Record<string, number> = {};
  const busyIds: number[] = [];
  const server = await startServer({
    dialect,
    config,
    seed: async (store) => {
      const f = new Fixtures(store);
      const alice = await f.user('alice', { passwordHash: passwordHash! });
      const bob = await f.user('bob', { passwordHash: passwordHash! });
      const carol = await f.user('carol', { passwordHash: passwordHash!, privateProfile: true });
      const api = (await f.project('acme/platform/api', alice.id, 'public')).id;
      const secret = (await f.project('acme/secret', alice.id, 'private')).id;
      const busy = (await f.project('acme/busy', alice.id, 'public')).id;
      await f.member(api, alice.id, 50);
      await f.member(api, bob.id, 30);
      await f.member(secret, alice.id, 50);
      await f.member(busy, alice.id, 50);
      const crash = await f.issue(api, alice.id, 'Crash <on> start');
      const fix = await f.mergeRequest(api, bob.id, 'Fix the crash');
      const note = await f.note(api, bob.id, { type: 'Issue', id: crash.id }, 'I see it too');
      const plan = await f.issue(secret, alice.id, 'Secret plan');
      const at = (day: number, hour = 10) => Date.UTC(2026, 0, day, hour);
      const event = async (name: string, e: Parameters<Fixtures['event']>[0]) => {
        ids[name] = (await f.event(e)).id;
      };
      // Older than the calendar's year: listed, never counted.
      await event('old', {
        projectId: api,
        authorId: alice.id,
        action: 'created',
        targetType: 'Issue',
        targetId: crash.id,
        issueId: crash.id,
        createdAt: Date.UTC(2024, 11, 1),
      });
      await event('opened', {
        projectId: api,
        authorId: alice.id,
        action: 'created',
        targetType: 'Issue',
        targetId: crash.id,
        issueId: crash.id,
        createdAt: at(5),
      });
      await event('mrOpened', {
        projectId: api,
        authorId: bob.id,
        action: 'created',
        targetType: 'MergeRequest',
        targetId: fix.id,
        createdAt: at(6),
      });
      await event('commented', {
        projectId: api,
        authorId: bob.id,
        action: 'commented',
        targetType: 'Note',
        targetId: note.id,
        issueId: crash.id,
        createdAt: at(7),
      });
      await event('merged', {
        projectId: api,
        authorId: alice.id,
        action: 'merged',
        targetType: 'MergeRequest',
        targetId: fix.id,
        createdAt: at(8),
      });
      await event('pushed', {
        projectId: api,
        authorId: alice.id,
        action: 'pushed',
        createdAt: at(8, 12),
        push: {
          ref: 'main',
          commitCount: 5,
          commits: [
            { id: '1111111111aaaaaaaaaa', message: 'Guard the start\n\nlong body' },
            { id: '2222222222bbbbbbbbbb', message: 'Test the crash' },
            { id: '3333333333cccccccccc', message: 'Tidy' },
            { id: '4444444444dddddddddd', message: 'Not shown' },
          ],
        },
      });
      await event('joined', {
        projectId: api,
        authorId: bob.id,
        action: 'joined',
        createdAt: at(9),
      });
      await event('closed', {
        projectId: api,
        authorId: alice.id,
        action: 'closed',
        targetType: 'Issue',
        targetId: crash.id,
        issueId: crash.id,
        createdAt: at(10),
      });
      await event('left', { projectId: api, authorId: bob.id, action: 'left', createdAt: at(11) });
      await event('secret', {
        projectId: secret,
        authorId: alice.id,
        action: 'created',
        targetType: 'Issue',
        targetId: plan.id,
        issueId: plan.id,
        createdAt: at(12),
      });
      await event('carol', {
        projectId: api,
        authorId: carol.id,
        action: 'joined',
        createdAt: at(12, 11),
      });
      for (let i = 0; i < 45; i++) {
        const row = await f.event({
          projectId: busy,
          authorId: alice.id,
          action: 'pushed',
          createdAt: at(13) + i * 60_000,
          push: { ref: `b${i}`, commits: [{ id: `${i}`.padStart(40, 'f'), message: `Push ${i}` }] },
        });
        busyIds.unshift(row.id);
      }
      Object.assign(world, { alice, bob, carol, api, secret, busy, fixtures: f });
    },
  });
  world.server = server;
  world.ids = ids;
  world.busyIds = busyIds;
  world.fixtures = new Fixtures(server.store);
  world.signIn = async (login) => {
    const browser = new Browser(server.url);
    const reply = await browser.signIn(login, PASSWORD);
    if (reply.status !== 303) throw new Error(`sign-in of ${login}: ${reply.status}`);
    return browser;
  };
  world.page = (path, browser) =>
    browser
      ? browser.fetch(path, { headers: { accept: BROWSER_ACCEPT } })
      : rawGet(server.url, path, { accept: BROWSER_ACCEPT });
  world.close = () => server.close();
  return world;
}

/** The event ids a page lists, in order. */
export function listedIds(html: string): number[] {
  return [...html.matchAll(/<li class="event" data-id="(\d+)">/g)].map((m) => Number(m[1]));
}

/** Markup whitespace folded away, so sentences compare as one line. */
export function folded(html: string): string {
  return html.replace(/\s*([<>])\s*/g, '$1').replace(/\s+/g, ' ');
}
