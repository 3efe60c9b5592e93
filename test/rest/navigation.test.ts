/**
 * The reads GitLab clients use to find their way to the events: users, projects (offset and
 * keyset pages), namespaces, groups, issues and merge requests across projects, /metadata, and
 * the project entity's links and clone URLs. Exact bodies and headers, as each viewer sees them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type HttpResult, call, get, pagination } from '../helpers/http.js';
import { type NavigationWorld, startNavigationWorld } from '../helpers/navigation-world.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DIALECTS } from '../helpers/server.js';
import { api } from '../writes/helpers.js';
import { Receiver } from '../webhooks/receiver.js';

/** The first group id: one above the largest row id, plus the group's first project's id. */
const GROUP_BASE = 2 ** 31 - 1;
const T0 = '2026-01-01T09:00:00.000Z';

const paths = (r: HttpResult) =>
  (r.body as { path_with_namespace?: string; full_path?: string; username?: string }[]).map(
    (x) => x.path_with_namespace ?? x.full_path ?? x.username,
  );
const titles = (r: HttpResult) => (r.body as { title: string }[]).map((x) => x.title);

for (const dialect of DIALECTS) {
  describe(`navigation reads (${dialect})`, () => {
    let w: NavigationWorld;
    let url: string;
    const v4 = (path: string, token?: string) => get(url, `/api/v4${path}`, token);
    const avatar = (hash: string) => `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`;

    before(async () => {
      w = await startNavigationWorld(dialect);
      url = w.server.url;
    });
    after(() => w.server.close());

    const basic = (id: number, username: string, name: string, state = 'active') => ({
      id,
      username,
      name,
      state,
      locked: false,
      avatar_url: avatar(
        // md5 of `<username>@example.com` (fixtures' e-mails), as the presenter computes it.
        {
          bob: '4b9bb80620f03eb3719e0a061c14283d',
          carol: 'd4766e3f21c67b7c786f012d910fa54f',
          dave: '6c1265401f75f9840d9c267655954800',
        }[username]!,
      ),
      web_url: `${url}/${username}`,
    });
    const EMPTY_PROFILE = {
      bio: '',
      location: '',
      public_email: null,
      linkedin: '',
      twitter: '',
      discord: '',
      website_url: '',
      organization: '',
      job_title: '',
      pronouns: null,
      bot: false,
      work_information: null,
      local_time: null,
    };
    /** A readable profile's fields: GitLab's follow counts before `local_time` (none here). */
    const { local_time: localTime, ...beforeLocalTime } = EMPTY_PROFILE;
    const READABLE_PROFILE = {
      ...beforeLocalTime,
      followers: 0,
      following: 0,
      local_time: localTime,
    };

    describe('users', () => {
      it('GET /users/:id: a public profile to anyone, with its creation time', async () => {
        const r = await v4(`/users/${w.users.bob}`);
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('content-type'), 'application/json');
        assert.deepEqual(r.body, {
          ...basic(w.users.bob, 'bob', 'Bob'),
          created_at: T0,
          ...READABLE_PROFILE,
        });
      });

      it('a private profile without its creation time, except to its owner and admins', async () => {
        const anonymous = await v4(`/users/${w.users.carol}`);
        assert.deepEqual(anonymous.body, {
          ...basic(w.users.carol, 'carol', 'Carol'),
          ...EMPTY_PROFILE,
        });
        const stranger = await v4(`/users/${w.users.carol}`, w.tokens.erin);
        assert.deepEqual(stranger.body, anonymous.body);
        const own = await v4(`/users/${w.users.carol}`, w.tokens.carol);
        assert.equal((own.body as { created_at: string }).created_at, T0);
        const admin = await v4(`/users/${w.users.carol}`, w.tokens.root);
        assert.deepEqual(admin.body, {
          ...basic(w.users.carol, 'carol', 'Carol'),
          created_at: T0,
          ...beforeLocalTime,
          followers: 0,
          following: 0,
          is_followed: false,
          local_time: localTime,
          email: 'carol@example.com',
          two_factor_enabled: false,
          private_profile: true,
          is_admin: false,
        });
      });

      it('a blocked user answers as blocked, its profile closed', async () => {
        const r = await v4(`/users/${w.users.dave}`, w.tokens.alice);
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, {
          ...basic(w.users.dave, 'dave', 'Dave', 'blocked'),
          ...EMPTY_PROFILE,
        });
      });

      it('unknown ids are 404, non-numeric ids 400, as Grape declares the integer', async () => {
        const missing = await v4('/users/999999');
        assert.equal(missing.status, 404);
        assert.equal(missing.text, '{"message":"404 User Not Found"}');
        // Above every stored id: refused as the house refuses every out-of-range integer.
        const huge = await v4('/users/99999999999');
        assert.equal(huge.status, 400);
        const name = await v4('/users/bob');
        assert.equal(name.status, 400);
        assert.equal(name.text, '{"error":"id is invalid"}');
      });

      it('GET /users?username=: exact, case-insensitive, UserBasic, paged', async () => {
        const r = await v4('/users?username=BOB');
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, [basic(w.users.bob, 'bob', 'Bob')]);
        assert.deepEqual(pagination(r.headers), {
          page: '1',
          perPage: '20',
          next: '',
          prev: '',
          total: '1',
          totalPages: '1',
        });
        assert.equal(
          r.headers.get('link'),
          `<${url}/api/v4/users?page=1&per_page=20&username=BOB>; rel="first", <${url}/api/v4/users?page=1&per_page=20&username=BOB>; rel="last"`,
        );
        assert.deepEqual((await v4('/users?username=bo')).body, []);
      });

      it('blocked users are listed to administrators only; private profiles to all', async () => {
        assert.deepEqual((await v4('/users?username=dave', w.tokens.alice)).body, []);
        assert.deepEqual(paths(await v4('/users?username=dave', w.tokens.root)), ['dave']);
        assert.deepEqual(paths(await v4('/users?username=carol')), ['carol']);
        const everyone = await v4('/users?per_page=100', w.tokens.alice);
        assert.deepEqual(paths(everyone), ['erin', 'root', 'carol', 'bob', 'alice']);
        const all = await v4('/users?per_page=100', w.tokens.root);
        assert.deepEqual(paths(all), ['erin', 'root', 'dave', 'carol', 'bob', 'alice']);
      });

      it('?search= matches usernames and names; pages carry their filters', async () => {
        assert.deepEqual(paths(await v4('/users?search=ROCKET', w.tokens.alice)), ['erin']);
        const r = await v4('/users?search=o&per_page=2&page=1', w.tokens.alice);
        assert.deepEqual(paths(r), ['erin', 'root']);
        assert.deepEqual(pagination(r.headers), {
          page: '1',
          perPage: '2',
          next: '2',
          prev: '',
          total: '4',
          totalPages: '2',
        });
        const next = await v4('/users?search=o&per_page=2&page=2', w.tokens.alice);
        assert.deepEqual(paths(next), ['carol', 'bob']);
      });

      it('anonymous callers must name a username', async () => {
        const r = await v4('/users?search=bob');
        assert.equal(r.status, 403);
        assert.equal(
          r.text,
          '{"message":"403 Forbidden - Not authorized to access /api/v4/users"}',
        );
        // A blank username names nobody: still a listing, refused anonymously, whole when signed in.
        assert.equal((await v4('/users?username=')).status, 403);
        assert.equal((await v4('/users?username=', w.tokens.alice)).headers.get('x-total'), '5');
      });

      it("GET /users/:id/projects: the user's own namespace, as the viewer may read it", async () => {
        assert.deepEqual(paths(await v4(`/users/${w.users.alice}/projects`)), ['alice/rocket']);
        assert.deepEqual(paths(await v4(`/users/alice/projects`, w.tokens.bob)), [
          'alice/notes',
          'alice/rocket',
        ]);
        assert.deepEqual(paths(await v4(`/users/${w.users.alice}/projects`, w.tokens.root)), [
          'alice/notes',
          'alice/rocket',
        ]);
        const missing = await v4('/users/999999/projects');
        assert.equal(missing.status, 404);
        assert.equal(missing.text, '{"message":"404 User Not Found"}');
      });

      it('GET /users/:id/contributed_projects: where they wrote events; none behind a private profile', async () => {
        assert.deepEqual(paths(await v4(`/users/${w.users.bob}/contributed_projects`)), [
          'acme/platform',
          'alice/rocket',
        ]);
        assert.deepEqual(
          paths(await v4(`/users/${w.users.alice}/contributed_projects`, w.tokens.erin)),
          [],
        );
        assert.deepEqual(
          paths(await v4(`/users/${w.users.alice}/contributed_projects`, w.tokens.bob)),
          ['alice/notes'],
        );
        const hidden = await v4(`/users/${w.users.carol}/contributed_projects`, w.tokens.erin);
        assert.equal(hidden.status, 200);
        assert.deepEqual(hidden.body, []);
        assert.equal(hidden.headers.get('x-total'), '0');
        assert.deepEqual(
          paths(await v4(`/users/${w.users.carol}/contributed_projects`, w.tokens.root)),
          ['zeta/vault'],
        );
      });
    });

    describe('projects', () => {
      it('anonymous: public projects, newest first, BasicProjectDetails', async () => {
        const r = await v4('/projects');
        assert.equal(r.status, 200);
        assert.deepEqual(paths(r), ['acme/platform', 'alice/rocket']);
        const rocket = (r.body as Record<string, unknown>[])[1]!;
        assert.deepEqual(rocket, {
          id: w.projects.rocket,
          description: 'The rocket project',
          name: 'rocket',
          name_with_namespace: 'alice / rocket',
          path: 'rocket',
          path_with_namespace: 'alice/rocket',
          created_at: T0,
          default_branch: 'main',
          tag_list: [],
          topics: [],
          ssh_url_to_repo: 'git@127.0.0.1:alice/rocket.git',
          http_url_to_repo: `${url}/alice/rocket.git`,
          web_url: `${url}/alice/rocket`,
          readme_url: null,
          forks_count: 0,
          avatar_url: null,
          star_count: 0,
          last_activity_at: T0,
          namespace: {
            id: w.users.alice,
            name: 'Alice',
            path: 'alice',
            kind: 'user',
            full_path: 'alice',
            parent_id: null,
            avatar_url: avatar('c160f8cc69a4f0bf2b0362752353d060'),
            web_url: `${url}/alice`,
          },
        });
        assert.deepEqual(pagination(r.headers), {
          page: '1',
          perPage: '20',
          next: '',
          prev: '',
          total: '2',
          totalPages: '1',
        });
      });

      it('signed in: internal projects and private memberships, with permissions', async () => {
        assert.deepEqual(paths(await v4('/projects', w.tokens.erin)), [
          'zeta/vault',
          'acme/platform',
          'alice/rocket',
        ]);
        const bob = await v4('/projects', w.tokens.bob);
        assert.deepEqual(paths(bob), [
          'zeta/vault',
          'acme/tools/cli',
          'acme/platform',
          'alice/notes',
          'alice/rocket',
        ]);
        const cli = (bob.body as Record<string, unknown>[])[1]!;
        assert.deepEqual(cli.namespace, {
          id: GROUP_BASE + w.projects.cli,
          name: 'tools',
          path: 'tools',
          kind: 'group',
          full_path: 'acme/tools',
          parent_id: GROUP_BASE + w.projects.platform,
          avatar_url: null,
          web_url: `${url}/groups/acme/tools`,
        });
        assert.deepEqual(cli.permissions, {
          project_access: { access_level: 50, notification_level: 3 },
          group_access: null,
        });
        assert.deepEqual((bob.body as Record<string, unknown>[])[4]!.permissions, {
          project_access: null,
          group_access: null,
        });
        assert.equal(
          (await v4('/projects?per_page=100', w.tokens.root)).headers.get('x-total'),
          '5',
        );
      });

      it('membership, owned, min_access_level, search, visibility, starred', async () => {
        assert.deepEqual(paths(await v4('/projects?membership=true', w.tokens.bob)), [
          'acme/tools/cli',
          'acme/platform',
          'alice/notes',
        ]);
        assert.deepEqual(paths(await v4('/projects?min_access_level=30', w.tokens.bob)), [
          'acme/tools/cli',
          'acme/platform',
        ]);
        assert.deepEqual(paths(await v4('/projects?owned=true', w.tokens.alice)), [
          'acme/platform',
          'alice/notes',
          'alice/rocket',
        ]);
        assert.deepEqual(paths(await v4('/projects?owned=true', w.tokens.erin)), []);
        assert.deepEqual(paths(await v4('/projects?search=ROCK')), ['alice/rocket']);
        assert.deepEqual(paths(await v4('/projects?search=vault%20project', w.tokens.erin)), [
          'zeta/vault',
        ]);
        assert.deepEqual(paths(await v4('/projects?search=%25')), []);
        assert.deepEqual(paths(await v4('/projects?visibility=private', w.tokens.bob)), [
          'acme/tools/cli',
          'alice/notes',
        ]);
        const starred = await v4('/projects?starred=true', w.tokens.alice);
        assert.deepEqual(starred.body, []);
        assert.equal(starred.headers.get('x-total'), '0');
      });

      it('order_by and sort', async () => {
        const names = async (q: string) => paths(await v4(`/projects?${q}`, w.tokens.root));
        assert.deepEqual(await names('order_by=name&sort=asc'), [
          'acme/tools/cli',
          'alice/notes',
          'acme/platform',
          'alice/rocket',
          'zeta/vault',
        ]);
        assert.deepEqual(await names('order_by=path&sort=desc'), [
          'zeta/vault',
          'alice/rocket',
          'acme/platform',
          'alice/notes',
          'acme/tools/cli',
        ]);
        assert.deepEqual(await names('order_by=id&sort=asc'), [
          'alice/rocket',
          'alice/notes',
          'acme/platform',
          'acme/tools/cli',
          'zeta/vault',
        ]);
        for (const order of ['created_at', 'updated_at', 'last_activity_at']) {
          assert.deepEqual(
            await names(`order_by=${order}&sort=asc`),
            await names('order_by=id&sort=asc'),
          );
        }
        const bad = await v4('/projects?order_by=stars&visibility=secret');
        assert.equal(bad.status, 400);
        assert.equal(
          bad.text,
          '{"error":"order_by does not have a valid value, visibility does not have a valid value"}',
        );
        const flag = await v4('/projects?membership=maybe');
        assert.equal(flag.text, '{"error":"membership is invalid"}');
      });

      it('simple=true gives BasicProjectDetails to signed-in callers too', async () => {
        const r = await v4('/projects?simple=true&search=cli', w.tokens.bob);
        const keys = Object.keys((r.body as object[])[0]!);
        assert.equal(keys.at(-1), 'namespace');
        assert.ok(!keys.includes('_links') && !keys.includes('permissions'));
      });

      it('keyset pagination walks every page by id, ascending and descending, without totals', async () => {
        const walk = async (sort: 'asc' | 'desc') => {
          const seen: number[][] = [];
          const nexts: (string | null)[] = [];
          let path: string | null =
            `/api/v4/projects?pagination=keyset&order_by=id&sort=${sort}&per_page=2`;
          while (path !== null) {
            const r = await get(url, path, w.tokens.root);
            assert.equal(r.status, 200);
            assert.equal(r.headers.get('x-total'), null);
            assert.equal(r.headers.get('x-total-pages'), null);
            assert.equal(r.headers.get('x-page'), null);
            seen.push((r.body as { id: number }[]).map((p) => p.id));
            const link = r.headers.get('link');
            nexts.push(link);
            if (link === null) path = null;
            else {
              const match = /^<([^>]+)>; rel="next"$/.exec(link);
              assert.ok(match, link);
              path = match[1]!.slice(url.length);
            }
          }
          return { seen, nexts };
        };
        const p = w.projects;
        const up = await walk('asc');
        assert.deepEqual(up.seen, [[p.rocket, p.notes], [p.platform, p.cli], [p.vault]]);
        assert.deepEqual(up.nexts, [
          `<${url}/api/v4/projects?id_after=${p.notes}&order_by=id&pagination=keyset&per_page=2&sort=asc>; rel="next"`,
          `<${url}/api/v4/projects?id_after=${p.cli}&order_by=id&pagination=keyset&per_page=2&sort=asc>; rel="next"`,
          null,
        ]);
        const down = await walk('desc');
        assert.deepEqual(down.seen, [[p.vault, p.cli], [p.platform, p.notes], [p.rocket]]);
        assert.match(down.nexts[0]!, new RegExp(`id_before=${p.cli}&`));
      });

      it('keyset pagination orders by id only (405 otherwise), and respects visibility', async () => {
        const r = await v4('/projects?pagination=keyset&order_by=name');
        assert.equal(r.status, 405);
        assert.equal(
          r.text,
          '{"message":"Keyset pagination is not yet available for this type of request"}',
        );
        const anonymous = await v4('/projects?pagination=keyset&order_by=id&sort=asc&per_page=1');
        assert.deepEqual(paths(anonymous), ['alice/rocket']);
        assert.equal(
          anonymous.headers.get('link'),
          `<${url}/api/v4/projects?id_after=${w.projects.rocket}&order_by=id&pagination=keyset&per_page=1&sort=asc>; rel="next"`,
        );
        const second = await v4(
          `/projects?pagination=keyset&order_by=id&sort=asc&per_page=1&id_after=${w.projects.rocket}`,
        );
        assert.deepEqual(paths(second), ['acme/platform']);
        assert.equal(second.headers.get('link'), null);
      });

      it('token scopes: api or read_api; read_user is refused', async () => {
        const readUser = await w.fx.token(w.users.alice, ['read_user']);
        const r = await v4('/projects', readUser);
        assert.equal(r.status, 403);
        assert.equal((r.body as { error: string }).error, 'insufficient_scope');
        assert.equal((await v4(`/users/${w.users.bob}`, readUser)).status, 200);
        assert.equal((await v4('/users?username=bob', readUser)).status, 200);
      });

      it('the project entity links only routes that answer; labels are none', async () => {
        const project = await v4(`/projects/${w.projects.rocket}`, w.tokens.alice);
        const links = (project.body as { _links: Record<string, string> })._links;
        assert.deepEqual(
          (project.body as { namespace: { id: number; kind: string } }).namespace.id,
          w.users.alice,
        );
        const platform = await v4(`/projects/${w.projects.platform}`);
        assert.deepEqual((platform.body as { namespace: unknown }).namespace, {
          id: GROUP_BASE + w.projects.platform,
          name: 'acme',
          path: 'acme',
          kind: 'group',
          full_path: 'acme',
          parent_id: null,
          avatar_url: null,
          web_url: `${url}/groups/acme`,
        });
        const base = `${url}/api/v4/projects/${w.projects.rocket}`;
        assert.deepEqual(links, {
          self: base,
          issues: `${base}/issues`,
          merge_requests: `${base}/merge_requests`,
          labels: `${base}/labels`,
          events: `${base}/events`,
          members: `${base}/members`,
        });
        for (const link of Object.values(links)) {
          const r = await get(url, link.slice(url.length), w.tokens.alice);
          assert.equal(r.status, 200, link);
        }
        const labels = await v4(`/projects/${w.projects.rocket}/labels`);
        assert.equal(labels.text, '[]');
        assert.equal(labels.headers.get('x-total'), '0');
        const hidden = await v4(`/projects/${w.projects.notes}/labels`, w.tokens.erin);
        assert.equal(hidden.status, 404);
        assert.equal(hidden.text, '{"message":"404 Project Not Found"}');
      });
    });

    describe('namespaces and groups', () => {
      const acme = () => ({
        id: GROUP_BASE + w.projects.platform,
        name: 'acme',
        path: 'acme',
        kind: 'group',
        full_path: 'acme',
        parent_id: null,
        avatar_url: null,
        web_url: `${url}/groups/acme`,
      });

      it('GET /namespaces: where the caller may create projects', async () => {
        const alice = await v4('/namespaces', w.tokens.alice);
        assert.equal(alice.status, 200);
        assert.deepEqual(alice.body, [
          {
            id: w.users.alice,
            name: 'Alice',
            path: 'alice',
            kind: 'user',
            full_path: 'alice',
            parent_id: null,
            avatar_url: avatar('c160f8cc69a4f0bf2b0362752353d060'),
            web_url: `${url}/alice`,
          },
          acme(),
        ]);
        assert.equal(alice.headers.get('x-total'), '2');
        assert.deepEqual(paths(await v4('/namespaces', w.tokens.bob)), ['bob', 'acme/tools']);
        assert.deepEqual(paths(await v4('/namespaces', w.tokens.erin)), ['erin']);
        assert.deepEqual(paths(await v4('/namespaces?search=ACM', w.tokens.alice)), ['acme']);
        assert.deepEqual(paths(await v4('/namespaces?per_page=100', w.tokens.root)), [
          'alice',
          'bob',
          'carol',
          'dave',
          'root',
          'erin',
          'acme',
          'acme/tools',
          'zeta',
        ]);
        const anonymous = await v4('/namespaces');
        assert.equal(anonymous.status, 401);
        assert.equal(anonymous.text, '{"message":"401 Unauthorized"}');
      });

      it("GET /namespaces/:id: by id or path; others' user namespaces are 404", async () => {
        assert.deepEqual(
          (await v4(`/namespaces/${GROUP_BASE + w.projects.platform}`, w.tokens.erin)).body,
          acme(),
        );
        assert.deepEqual((await v4('/namespaces/ACME', w.tokens.erin)).body, acme());
        assert.deepEqual(
          paths({ body: [(await v4('/namespaces/alice', w.tokens.alice)).body] } as HttpResult),
          ['alice'],
        );
        const other = await v4(`/namespaces/${w.users.alice}`, w.tokens.bob);
        assert.equal(other.status, 404);
        assert.equal(other.text, '{"message":"404 Namespace Not Found"}');
        assert.equal((await v4(`/namespaces/${w.users.alice}`, w.tokens.root)).status, 200);
        const hidden = await v4('/namespaces/acme%2Ftools', w.tokens.erin);
        assert.equal(hidden.status, 404);
        assert.equal((await v4('/namespaces/acme%2Ftools', w.tokens.bob)).status, 200);
        assert.equal((await v4(`/namespaces/${GROUP_BASE + 999}`, w.tokens.root)).status, 404);
      });

      it('GET /groups: groups holding a project the viewer can read', async () => {
        const anonymous = await v4('/groups');
        assert.deepEqual(anonymous.body, [
          {
            id: GROUP_BASE + w.projects.platform,
            web_url: `${url}/groups/acme`,
            name: 'acme',
            path: 'acme',
            description: '',
            visibility: 'public',
            avatar_url: null,
            full_name: 'acme',
            full_path: 'acme',
            parent_id: null,
          },
        ]);
        assert.deepEqual(paths(await v4('/groups', w.tokens.erin)), ['acme', 'zeta']);
        assert.deepEqual(paths(await v4('/groups', w.tokens.bob)), ['acme', 'acme/tools', 'zeta']);
        assert.deepEqual(paths(await v4('/groups?top_level_only=true', w.tokens.bob)), [
          'acme',
          'zeta',
        ]);
        assert.deepEqual(paths(await v4('/groups?owned=true', w.tokens.bob)), ['acme/tools']);
        assert.deepEqual(paths(await v4('/groups?min_access_level=30', w.tokens.bob)), [
          'acme',
          'acme/tools',
        ]);
        assert.deepEqual(paths(await v4('/groups?search=tool', w.tokens.root)), ['acme/tools']);
        assert.deepEqual(paths(await v4('/groups?order_by=id&sort=desc', w.tokens.root)), [
          'zeta',
          'acme/tools',
          'acme',
        ]);
        const visibility = (await v4('/groups', w.tokens.root)).body as { visibility: string }[];
        assert.deepEqual(
          visibility.map((g) => g.visibility),
          ['public', 'private', 'internal'],
        );
      });

      it('GET /groups/:id and /groups/:id/projects', async () => {
        const tools = await v4('/groups/acme%2Ftools', w.tokens.bob);
        assert.equal(tools.status, 200);
        const body = tools.body as {
          projects: { path_with_namespace: string }[];
          parent_id: number;
        };
        assert.equal(body.parent_id, GROUP_BASE + w.projects.platform);
        assert.deepEqual(
          body.projects.map((p) => p.path_with_namespace),
          ['acme/tools/cli'],
        );
        const hidden = await v4('/groups/acme%2Ftools', w.tokens.erin);
        assert.equal(hidden.status, 404);
        assert.equal(hidden.text, '{"message":"404 Group Not Found"}');
        assert.equal((await v4(`/groups/${GROUP_BASE + w.projects.cli}`)).status, 404);
        assert.equal((await v4('/groups/alice')).status, 404);
        assert.deepEqual(paths(await v4('/groups/acme/projects')), ['acme/platform']);
        assert.deepEqual(
          paths(await v4('/groups/acme/projects?include_subgroups=true', w.tokens.bob)),
          ['acme/tools/cli', 'acme/platform'],
        );
        assert.deepEqual(
          paths(await v4('/groups/acme/projects?include_subgroups=true', w.tokens.erin)),
          ['acme/platform'],
        );
      });

      it('POST /projects in a group found through /namespaces', async () => {
        const groupId = GROUP_BASE + w.projects.platform;
        const made = await api(w.server, 'POST', '/projects', w.tokens.alice, {
          name: 'Launchpad',
          namespace_id: groupId,
        });
        assert.equal(made.status, 201);
        const project = made.body as { path_with_namespace: string; namespace: unknown };
        assert.equal(project.path_with_namespace, 'acme/launchpad');
        const refused = await api(w.server, 'POST', '/projects', w.tokens.erin, {
          name: 'Intruder',
          namespace_id: groupId,
        });
        assert.equal(refused.status, 403);
        const theirs = await api(w.server, 'POST', '/projects', w.tokens.root, {
          name: 'Gift',
          namespace_id: w.users.erin,
        });
        assert.equal(
          (theirs.body as { path_with_namespace: string }).path_with_namespace,
          'erin/gift',
        );
        const nowhere = await api(w.server, 'POST', '/projects', w.tokens.root, {
          name: 'Lost',
          namespace_id: 424242,
        });
        assert.equal(nowhere.status, 404);
        assert.equal(nowhere.text, '{"message":"404 Namespace Not Found"}');
        const anonymous = await api(w.server, 'POST', '/projects', undefined, {
          name: 'Lost',
          namespace_id: 424242,
        });
        assert.equal(anonymous.status, 401);
      });
    });

    describe('issues and merge requests across projects', () => {
      it("GET /issues: the caller's own by default; anonymous callers only with scope=all", async () => {
        assert.deepEqual(titles(await v4('/issues', w.tokens.alice)), [
          'Shopping list',
          'Launch codes',
        ]);
        const anonymous = await v4('/issues');
        assert.equal(anonymous.status, 401);
        const all = await v4('/issues?scope=all');
        assert.deepEqual(titles(all), ['Platform is slow', 'Rocket wobbles']);
        assert.equal(all.headers.get('x-total'), '2');
        const issue = (all.body as Record<string, unknown>[])[1]!;
        assert.equal(issue.web_url, `${url}/alice/rocket/-/issues/${issue.iid as number}`);
        assert.equal((issue.author as { username: string }).username, 'bob');
      });

      it('scope=all: confidential issues for Reporters and authors, private projects for members', async () => {
        assert.deepEqual(titles(await v4('/issues?scope=all', w.tokens.erin)), [
          'Platform is slow',
          'Rocket wobbles',
        ]);
        assert.deepEqual(titles(await v4('/issues?scope=all', w.tokens.bob)), [
          'Platform is slow',
          'Shopping list',
          'Rocket wobbles',
        ]);
        const everything = ['Platform is slow', 'Shopping list', 'Launch codes', 'Rocket wobbles'];
        assert.deepEqual(titles(await v4('/issues?scope=all', w.tokens.alice)), everything);
        assert.deepEqual(titles(await v4('/issues?scope=all', w.tokens.root)), everything);
        assert.deepEqual(titles(await v4('/issues?scope=assigned_to_me', w.tokens.alice)), []);
        assert.deepEqual(titles(await v4('/issues?scope=created-by-me', w.tokens.bob)), [
          'Platform is slow',
          'Rocket wobbles',
        ]);
      });

      it('state, search, order and pages', async () => {
        assert.deepEqual(titles(await v4('/issues?scope=all&state=closed', w.tokens.root)), []);
        assert.deepEqual(titles(await v4('/issues?scope=all&search=WOBB', w.tokens.root)), [
          'Rocket wobbles',
        ]);
        const r = await v4('/issues?scope=all&sort=asc&per_page=3&page=2', w.tokens.root);
        assert.deepEqual(titles(r), ['Platform is slow']);
        assert.deepEqual(pagination(r.headers), {
          page: '2',
          perPage: '3',
          next: '',
          prev: '1',
          total: '4',
          totalPages: '2',
        });
        assert.deepEqual(
          titles(await v4('/issues?scope=all&order_by=priority&sort=asc', w.tokens.root)),
          ['Rocket wobbles', 'Launch codes', 'Shopping list', 'Platform is slow'],
        );
        assert.deepEqual(
          titles(await v4('/issues?scope=all&order_by=title&sort=asc', w.tokens.root)),
          ['Launch codes', 'Platform is slow', 'Rocket wobbles', 'Shopping list'],
        );
        const bad = await v4('/issues?scope=mine&state=open', w.tokens.root);
        assert.equal(bad.status, 400);
        assert.equal(
          bad.text,
          '{"error":"scope does not have a valid value, state does not have a valid value"}',
        );
      });

      it("GET /merge_requests: a private project's need Reporter", async () => {
        assert.deepEqual(titles(await v4('/merge_requests?scope=all', w.tokens.bob)), [
          'Add a flag',
          'Fix the wobble',
        ]);
        assert.deepEqual(titles(await v4('/merge_requests?scope=all', w.tokens.alice)), [
          'Tidy the list',
          'Fix the wobble',
        ]);
        assert.deepEqual(titles(await v4('/merge_requests?scope=all')), ['Fix the wobble']);
        assert.deepEqual(titles(await v4('/merge_requests', w.tokens.bob)), [
          'Add a flag',
          'Fix the wobble',
        ]);
        assert.deepEqual(titles(await v4('/merge_requests?state=merged', w.tokens.bob)), []);
        const mr = ((await v4('/merge_requests?scope=all')).body as Record<string, unknown>[])[0]!;
        assert.equal(mr.web_url, `${url}/alice/rocket/-/merge_requests/${mr.iid as number}`);
      });
    });

    it('GET /metadata', async () => {
      const r = await v4('/metadata', w.tokens.erin);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        version: '17.5.0',
        revision: w.server.services.config && (r.body as { revision: string }).revision,
        kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
        enterprise: false,
      });
      assert.equal(
        (r.body as { revision: string }).revision,
        ((await v4('/version', w.tokens.erin)).body as { revision: string }).revision,
      );
      assert.equal((await v4('/metadata')).status, 401);
    });
  });

  describe(`ssh_url_to_repo (${dialect})`, () => {
    it('a configured SSH host and port give the ssh:// form; port 22 the scp-like one', async () => {
      const custom = await startNavigationWorld(dialect, {
        sshHost: 'git.example.com',
        sshPort: 2222,
      });
      try {
        const r = await get(custom.server.url, `/api/v4/projects/${custom.projects.rocket}`);
        assert.equal(
          (r.body as { ssh_url_to_repo: string }).ssh_url_to_repo,
          'ssh://git@git.example.com:2222/alice/rocket.git',
        );
        custom.server.config.sshPort = 22;
        const plain = await get(custom.server.url, `/api/v4/projects?search=rocket`);
        assert.equal(
          (plain.body as { ssh_url_to_repo: string }[])[0]!.ssh_url_to_repo,
          'git@git.example.com:alice/rocket.git',
        );
      } finally {
        await custom.server.close();
      }
    });

    it('one SSH URL everywhere: the project entity, push data in REST and GraphQL, webhooks', async () => {
      const receiver = await new Receiver().listen();
      const custom = await startNavigationWorld(dialect, {
        sshHost: 'git.example.com',
        sshPort: 2222,
        webhooksAllowLocal: true,
      });
      try {
        const SSH = 'ssh://git@git.example.com:2222/alice/rocket.git';
        const { server, fx, users, projects, tokens } = custom;
        const hook = await api(server, 'POST', `/projects/${projects.rocket}/hooks`, tokens.alice, {
          url: receiver.url,
          push_events: true,
        });
        assert.equal(hook.status, 201, hook.text);
        const pushToken = await fx.token(users.alice, ['write_repository']);
        const commit = 'c'.repeat(40);
        const pushed = await api(server, 'POST', `/projects/${projects.rocket}/pushes`, pushToken, {
          changes: [
            {
              before: '0'.repeat(40),
              after: commit,
              ref: 'refs/heads/main',
              total_commits_count: 1,
              commits: [
                {
                  id: commit,
                  message: 'Lift off\n',
                  timestamp: '2026-01-10T09:30:00Z',
                  author: { name: 'Alice', email: 'alice@example.com' },
                },
              ],
            },
          ],
        });
        assert.equal(pushed.status, 201, pushed.text);

        const entity = await get(server.url, `/api/v4/projects/${projects.rocket}`);
        assert.equal((entity.body as { ssh_url_to_repo: string }).ssh_url_to_repo, SSH);

        const events = await get(
          server.url,
          `/api/v4/projects/${projects.rocket}/events?action=pushed`,
          tokens.alice,
        );
        assert.equal(events.status, 200);
        const data = (events.body as { data: { repository: { url: string } } }[])[0]!.data;
        assert.equal(data.repository.url, SSH);

        const graphql = await call(server.url, '/api/graphql', {
          method: 'POST',
          headers: { 'private-token': tokens.alice, 'content-type': 'application/json' },
          body: JSON.stringify({
            query:
              '{ project(idOrPath: "alice/rocket") { events(first: 1, filter: { action: PUSHED }) ' +
              '{ nodes { payload { ... on PushData { repository { url } } } } } } }',
          }),
        });
        assert.equal(graphql.status, 200, graphql.text);
        assert.deepEqual(graphql.body, {
          data: {
            project: { events: { nodes: [{ payload: { repository: { url: SSH } } }] } },
          },
        });

        await receiver.waitFor(1);
        const body = receiver.received[0]!.body as {
          project: Record<string, unknown>;
          repository: Record<string, unknown>;
        };
        assert.equal(body.project.git_ssh_url, SSH);
        assert.equal(body.project.ssh_url, SSH);
        assert.equal(body.project.url, SSH);
        assert.equal(body.repository.url, SSH);
        assert.equal(body.repository.git_ssh_url, SSH);
      } finally {
        await custom.server.close();
        await receiver.close();
      }
    });
  });
}

describe('SSH clone settings', () => {
  it('PULSEGATE_SSH_HOST and PULSEGATE_SSH_PORT, validated; by default the external host on 22', () => {
    const plain = loadConfig({}, { PULSEGATE_EXTERNAL_URL: 'https://git.example.com:8443' });
    assert.deepEqual([plain.sshHost, plain.sshPort], [null, 22]);
    const set = loadConfig(
      {},
      { PULSEGATE_SSH_HOST: 'ssh.example.com', PULSEGATE_SSH_PORT: '2222' },
    );
    assert.deepEqual([set.sshHost, set.sshPort], ['ssh.example.com', 2222]);
    assert.throws(
      () => loadConfig({}, { PULSEGATE_SSH_PORT: '0' }),
      new ConfigError(
        '--ssh-port (or PULSEGATE_SSH_PORT) must be a whole number from 1 to 65535: 0',
      ),
    );
    assert.throws(
      () => loadConfig({}, { PULSEGATE_SSH_HOST: 'git@example.com:22' }),
      new ConfigError(
        '--ssh-host (or PULSEGATE_SSH_HOST) must be a host name or address, without a scheme, user or port: git@example.com:22',
      ),
    );
  });
});
