/**
 * Real GitLab clients, unchanged, find their way to the events through pulsegate: @gitbeaker/rest
 * and python-gitlab (Debian's python3-gitlab) find a user by username and list their events, list
 * projects by search, membership, ownership and order, find a namespace and create a project in
 * it, list issues across projects, and page through every project with keyset pagination.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { type NavigationWorld, startNavigationWorld } from '../helpers/navigation-world.js';
import { runPythonGitlab } from '../helpers/python-gitlab.js';
import { DIALECTS } from '../helpers/server.js';

const SCRIPT = fileURLToPath(new URL('./clients/python_gitlab_navigation.py', import.meta.url));

/** The URLs `fetch` was asked for while `work` ran (gitbeaker uses the global fetch). */
async function fetched<T>(work: () => Promise<T>): Promise<{ result: T; urls: string[] }> {
  const original = globalThis.fetch;
  const urls: string[] = [];
  globalThis.fetch = (input, init) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return original(input, init);
  };
  try {
    return { result: await work(), urls };
  } finally {
    globalThis.fetch = original;
  }
}

const paths = (projects: { path_with_namespace: string }[]) =>
  projects.map((p) => p.path_with_namespace);

for (const dialect of DIALECTS) {
  describe(`GitLab clients find their way (${dialect})`, () => {
    let w: NavigationWorld;
    before(async () => {
      w = await startNavigationWorld(dialect);
    });
    after(() => w.server.close());

    it('@gitbeaker/rest', async () => {
      const api = new Gitlab({ host: w.server.url, token: w.tokens.alice });

      const [bob] = await api.Users.all({ username: 'bob' });
      assert.equal(bob!.id, w.users.bob);
      const shown = await api.Users.show(bob!.id);
      assert.equal(shown.username, 'bob');
      const events = await api.Users.allEvents(bob!.id);
      assert.deepEqual(
        events.map((e) => [e.action_name, e.target_title]),
        [
          ['opened', 'Platform is slow'],
          ['opened', 'Rocket wobbles'],
        ],
      );

      assert.deepEqual(paths(await api.Projects.all({ search: 'rocket' })), ['alice/rocket']);
      assert.deepEqual(paths(await api.Projects.all({ membership: true })), [
        'acme/platform',
        'alice/notes',
        'alice/rocket',
      ]);
      assert.deepEqual(paths(await api.Projects.all({ owned: true, simple: true })), [
        'acme/platform',
        'alice/notes',
        'alice/rocket',
      ]);
      assert.deepEqual(paths(await api.Projects.all({ orderBy: 'name', sort: 'asc' })), [
        'alice/notes',
        'acme/platform',
        'alice/rocket',
        'zeta/vault',
      ]);

      const [acme] = await api.Namespaces.all({ search: 'acme' });
      assert.equal(acme!.kind, 'group');
      assert.equal((await api.Namespaces.show('acme')).id, acme!.id);
      const created = await api.Projects.create({ name: 'Beaker Lab', namespaceId: acme!.id });
      assert.equal(created.path_with_namespace, 'acme/beaker-lab');

      const issues = await api.Issues.all({ scope: 'all' });
      assert.deepEqual(
        issues.map((i) => i.title),
        ['Platform is slow', 'Shopping list', 'Launch codes', 'Rocket wobbles'],
      );

      const root = new Gitlab({ host: w.server.url, token: w.tokens.root });
      const { result: all, urls } = await fetched(() =>
        root.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 2 }),
      );
      const p = w.projects;
      assert.deepEqual(
        all.map((x) => x.id),
        [p.rocket, p.notes, p.platform, p.cli, p.vault, created.id],
      );
      assert.equal(urls.length, 3);
      assert.match(urls[1]!, new RegExp(`id_after=${p.notes}(&|$)`));
      assert.match(urls[2]!, new RegExp(`id_after=${p.cli}(&|$)`));
    });

    it('python-gitlab', async (t) => {
      const stdout = await runPythonGitlab(t, SCRIPT, [w.server.url, w.tokens.alice]);
      if (stdout === null) return;
      const seen = JSON.parse(stdout) as Record<string, unknown>;
      assert.deepEqual(seen.user, ['bob', 'active']);
      assert.deepEqual(seen.events, [
        ['opened', 'Platform is slow'],
        ['opened', 'Rocket wobbles'],
      ]);
      assert.deepEqual(seen.search, ['alice/rocket']);
      assert.deepEqual(seen.namespace, ['group', 'acme', true]);
      assert.equal(seen.created, 'acme/snake-pit');
      // Alice's, with the one the gitbeaker test made and the one this script made.
      const mine = [
        'acme/snake-pit',
        'acme/beaker-lab',
        'acme/platform',
        'alice/notes',
        'alice/rocket',
      ];
      assert.deepEqual(seen.membership, mine);
      assert.deepEqual(seen.owned, mine);
      // By name, case-folded: "Beaker Lab", notes, platform, rocket, "Snake Pit", vault.
      assert.deepEqual(seen.ordered, [
        'acme/beaker-lab',
        'alice/notes',
        'acme/platform',
        'alice/rocket',
        'acme/snake-pit',
        'zeta/vault',
      ]);
      assert.deepEqual(seen.issues, [
        'Platform is slow',
        'Shopping list',
        'Launch codes',
        'Rocket wobbles',
      ]);
      const keyset = seen.keyset as number[];
      assert.deepEqual(
        keyset,
        [...keyset].sort((a, b) => a - b),
      );
      assert.equal(keyset.length, 6);
      const requests = seen.keyset_requests as string[];
      assert.equal(requests.length, 3);
      assert.match(requests[1]!, /id_after=\d+/);
    });
  });
}
