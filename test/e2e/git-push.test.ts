/**
 * Real pushes: a bare repository with the hook `pulsegate hook install` writes, a clone, commits,
 * `git push` of a branch, 25 commits, a new branch, a tag and a deletion; the events appear in the
 * REST and GraphQL listings with GitLab's push payload. Then the refusals (a guest's token: the
 * push succeeds, the hook says why nothing was recorded) and the endpoint's strict validation.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { shellQuote } from '../../src/cli/hook.js';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { raw } from '../graphql/client.js';
import { Fixtures } from '../helpers/fixtures.js';
import { gitSandbox } from '../helpers/git-sandbox.js';
import { call, get } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const BIN = resolve('bin/pulsegate.js');
const ZERO = '0'.repeat(40);
const COMMITTED = '2026-01-10T09:30:00+02:00';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** What a child prints and how it ends; `input`, when given, is written to its stdin. */
function collect(child: ChildProcessWithoutNullStreams, input?: string): Promise<Run> {
  return new Promise((done, fail) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
    if (input !== undefined) child.stdin.end(input);
  });
}

for (const dialect of DIALECTS) {
  describe(`real git pushes reported by the post-receive hook (${dialect})`, () => {
    let server: TestServer;
    let dir: string;
    let bare: string;
    let work: string;
    let env: NodeJS.ProcessEnv;
    let developer: string;
    let guest: string;
    /** Push tokens (scope write_repository) of the developer and the guest. */
    let pusher: string;
    let guestPusher: string;
    let reader: string;
    let projectId: number;
    let privateId: number;

    /** git with a clean, pinned environment (no system or user config; fixed dates). */
    function git(args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}): Run {
      const r = spawnSync('git', args, { cwd, env: { ...env, ...extra }, encoding: 'utf8' });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    }
    /**
     * `git push` runs the hook, which calls this very process's server: it must not block the event
     * loop (spawnSync would deadlock until the hook's timeout).
     */
    function push(args: string[]): Promise<Run> {
      return collect(spawn('git', ['push', '-q', ...args], { cwd: work, env }));
    }
    /** The hook as git runs it: in the bare repository, the ref updates on stdin. */
    function hook(input: string, extra: NodeJS.ProcessEnv): Promise<Run> {
      return collect(
        spawn(process.execPath, [BIN, 'hook', 'post-receive'], {
          cwd: bare,
          env: { ...env, ...extra },
        }),
        input,
      );
    }
    function gitOk(args: string[], cwd = work): string {
      const r = git(args, cwd);
      assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
      return r.stdout.trim();
    }
    /** The CLI, without blocking the event loop: `hook install` asks this process's server. */
    function cli(args: string[], extra: NodeJS.ProcessEnv, input = ''): Promise<Run> {
      return collect(spawn(process.execPath, [BIN, ...args], { env: { ...env, ...extra } }), input);
    }
    function hookEnv(token: string, project = 'alice/app') {
      return { PULSEGATE_URL: server.url, PULSEGATE_TOKEN: token, PULSEGATE_PROJECT: project };
    }
    function commit(message: string): string {
      writeFileSync(join(work, 'file.txt'), `${message}\n${Math.random()}\n`);
      gitOk(['add', 'file.txt']);
      gitOk(['commit', '-q', '--cleanup=verbatim', '-m', message]);
      return gitOk(['rev-parse', 'HEAD']);
    }
    async function pushEvents(token = developer, id = projectId) {
      const r = await get(
        server.url,
        `/api/v4/projects/${id}/events?action=pushed&sort=asc&per_page=100`,
        token,
      );
      assert.equal(r.status, 200, r.text);
      return r.body as Array<{
        id: number;
        action_name: string;
        author_id: number;
        push_data: Record<string, unknown>;
        data: { commits: Array<Record<string, unknown>>; total_commits_count: number };
      }>;
    }

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice', { name: 'Alice Moreau' });
          const bob = await f.user('bob');
          const carol = await f.user('carol');
          const project = await f.project('alice/app', alice.id, 'public');
          const secret = await f.project('alice/secret', alice.id, 'private');
          await f.member(project.id, alice.id, ACCESS_LEVELS.developer);
          await f.member(project.id, bob.id, ACCESS_LEVELS.guest);
          await f.member(secret.id, alice.id, ACCESS_LEVELS.maintainer);
          developer = await f.token(alice.id, ['api']);
          guest = await f.token(bob.id, ['api']);
          pusher = await f.token(alice.id, ['write_repository']);
          guestPusher = await f.token(bob.id, ['write_repository']);
          reader = await f.token(carol.id, ['read_api']);
          projectId = project.id;
          privateId = secret.id;
        },
      });
      ({ dir, env } = gitSandbox('pulsegate-push-', {
        GIT_COMMITTER_DATE: COMMITTED,
        GIT_AUTHOR_DATE: COMMITTED,
      }));
      bare = join(dir, 'app.git');
      work = join(dir, 'work');
      gitOk(['init', '-q', '--bare', bare], dir);
    });

    after(async () => {
      await server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('hook install refuses a token that reads the API; writes an executable post-receive (owner only) with the push token quoted for sh; refuses a non-bare path', async () => {
      const hook = join(bare, 'hooks', 'post-receive');
      // The hook keeps its token on disk: one that reads the API is refused, nothing is written.
      for (const token of [developer, reader]) {
        const refused = await cli(['hook', 'install', bare], hookEnv(token));
        assert.deepEqual(refused, {
          status: 2,
          stdout: '',
          stderr:
            'pulsegate: PULSEGATE_TOKEN reads the API (scope api, read_api or read_user); the hook keeps its token on disk: give it a push token, scope write_repository only\n',
        });
        assert.equal(existsSync(hook), false);
      }
      const unknown = await cli(['hook', 'install', bare], hookEnv('glpat-nothing'));
      assert.equal(unknown.status, 2);
      assert.equal(
        unknown.stderr,
        `pulsegate: ${server.url} refused PULSEGATE_TOKEN (expired, revoked or wrong?)\n`,
      );
      assert.equal(existsSync(hook), false);

      const r = await cli(['hook', 'install', bare], hookEnv(pusher));
      assert.equal(r.status, 0, r.stderr);
      assert.equal(
        r.stdout,
        `installed ${hook}: pushes are reported to ${server.url} for project alice/app\n`,
      );
      assert.equal(statSync(hook).mode & 0o777, 0o700);
      const script = readFileSync(hook, 'utf8');
      assert.ok(script.startsWith('#!/bin/sh\n# pulsegate post-receive hook\n'));
      assert.ok(script.includes(`PULSEGATE_TOKEN='${pusher}'\n`));
      assert.ok(script.includes(`PULSEGATE_PROJECT='alice/app'\n`));
      assert.ok(
        script.endsWith(
          `exec ${shellQuote(process.execPath)} ${shellQuote(BIN)} hook post-receive\n`,
        ),
      );

      gitOk(['clone', '-q', bare, work], dir);
      const refused = await cli(['hook', 'install', work], hookEnv(pusher));
      assert.equal(refused.status, 2);
      assert.equal(
        refused.stderr,
        `pulsegate: ${work} is not a bare repository (git init --bare)\n`,
      );
      const inside = await cli(['hook', 'install', join(bare, 'hooks')], hookEnv(pusher));
      assert.equal(inside.status, 2);
      assert.match(inside.stderr, /is not a bare repository/);
      const missing = await cli(['hook', 'install', bare], { PULSEGATE_URL: server.url });
      assert.equal(missing.status, 2);
      assert.equal(missing.stderr, 'pulsegate: PULSEGATE_TOKEN, PULSEGATE_PROJECT must be set\n');
    });

    it('the sh quoting round-trips any value (property)', () => {
      fc.assert(
        fc.property(
          fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0')),
          (value) => {
            const r = spawnSync('/bin/sh', ['-c', `printf %s ${shellQuote(value)}`], {
              encoding: 'utf8',
            });
            assert.equal(r.stdout, value);
          },
        ),
        { numRuns: 40 },
      );
    });

    it('a new branch with 3 commits: "pushed new" main, 3 commits, title of the newest', async () => {
      const shas = [commit('First'), commit('Second\n\nwith a body'), commit('Third commit')];
      const r = await push(['origin', 'main']);
      assert.equal(r.status, 0, r.stderr);
      const events = await pushEvents();
      assert.equal(events.length, 1);
      const [event] = events;
      assert.match(
        r.stderr,
        new RegExp(
          `remote: pulsegate: recorded event ${event!.id}: pushed new branch main \\(3 commits\\)`,
        ),
      );
      assert.equal(event!.action_name, 'pushed new');
      assert.deepEqual(event!.push_data, {
        commit_count: 3,
        action: 'created',
        ref_type: 'branch',
        commit_from: null,
        commit_to: shas[2],
        ref: 'main',
        commit_title: 'Third commit',
        ref_count: null,
      });
      assert.deepEqual(
        event!.data.commits,
        [
          ['First\n', shas[0]],
          ['Second\n\nwith a body\n', shas[1]],
          ['Third commit\n', shas[2]],
        ].map(([message, id]) => ({
          id,
          message,
          timestamp: COMMITTED,
          url: `${server.url}/alice/app/-/commit/${id}`,
          author: { name: 'Alice Moreau', email: 'alice@example.com' },
        })),
      );
    });

    it('25 commits: count 25, the newest 20 kept, the title stripped and cut at 70 characters', async () => {
      const previous = gitOk(['rev-parse', 'HEAD']);
      const shas: string[] = [];
      for (let i = 1; i <= 24; i++) shas.push(commit(`Commit ${i}`));
      shas.push(commit(`  ${'é'.repeat(80)}  \n\nbody`));
      const r = await push(['origin', 'main']);
      assert.equal(r.status, 0, r.stderr);
      const event = (await pushEvents()).at(-1)!;
      assert.equal(event.action_name, 'pushed to');
      assert.deepEqual(event.push_data, {
        commit_count: 25,
        action: 'pushed',
        ref_type: 'branch',
        commit_from: previous,
        commit_to: shas[24],
        ref: 'main',
        commit_title: `${'é'.repeat(67)}...`,
        ref_count: null,
      });
      assert.equal(event.data.total_commits_count, 25);
      assert.deepEqual(
        event.data.commits.map((c) => c.id),
        shas.slice(5),
      );
    });

    it('a second branch counts only the commits no other ref has; an annotated tag; a deletion', async () => {
      const main = gitOk(['rev-parse', 'HEAD']);
      gitOk(['checkout', '-q', '-b', 'feature/x']);
      const f1 = commit('Feature one');
      const f2 = commit('Feature two');
      let r = await push(['origin', 'feature/x']);
      assert.equal(r.status, 0, r.stderr);
      gitOk(['tag', '-a', 'v1.0', main, '-m', 'Release 1.0']);
      const tagObject = gitOk(['rev-parse', 'v1.0']);
      r = await push(['origin', 'v1.0']);
      assert.equal(r.status, 0, r.stderr);
      r = await push(['origin', '--delete', 'feature/x']);
      assert.equal(r.status, 0, r.stderr);

      const [branch, tag, removed] = (await pushEvents()).slice(-3);
      assert.deepEqual(branch!.push_data, {
        commit_count: 2,
        action: 'created',
        ref_type: 'branch',
        commit_from: null,
        commit_to: f2,
        ref: 'feature/x',
        commit_title: 'Feature two',
        ref_count: null,
      });
      assert.deepEqual(
        branch!.data.commits.map((c) => c.id),
        [f1, f2],
      );
      // A tag's push carries the commit it points to; commit_to is the tag object itself.
      assert.equal(tag!.action_name, 'pushed new');
      assert.deepEqual(tag!.push_data, {
        commit_count: 1,
        action: 'created',
        ref_type: 'tag',
        commit_from: null,
        commit_to: tagObject,
        ref: 'v1.0',
        commit_title: `${'é'.repeat(67)}...`,
        ref_count: null,
      });
      assert.deepEqual(
        tag!.data.commits.map((c) => c.id),
        [main],
      );
      assert.equal(removed!.action_name, 'deleted');
      assert.deepEqual(removed!.push_data, {
        commit_count: 0,
        action: 'removed',
        ref_type: 'branch',
        commit_from: f2,
        commit_to: null,
        ref: 'feature/x',
        commit_title: null,
        ref_count: null,
      });
      assert.deepEqual(removed!.data.commits, []);
    });

    it('GraphQL shows the same pushes as PushData', async () => {
      const rest = await pushEvents();
      const res = await raw<{
        project: {
          events: { nodes: Array<{ eventId: number; payload: Record<string, unknown> }> };
        };
      }>(
        server.url,
        `{ project(idOrPath: "alice/app") { events(filter: {action: PUSHED}, first: 10) { nodes {
            eventId: id
            payload { __typename ... on PushData { action refType refName commitFrom commitTo
              commitCount commitTitle commits { id } } } } } } }`,
        undefined,
        { token: developer },
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.errors, undefined);
      const nodes = res.body.data!.project.events.nodes;
      // Newest first, as the listing sorts by default.
      const expected = [...rest].reverse().map((e) => ({
        __typename: 'PushData',
        action: String(e.push_data.action).toUpperCase(),
        refType: String(e.push_data.ref_type).toUpperCase(),
        refName: e.push_data.ref,
        commitFrom: e.push_data.commit_from,
        commitTo: e.push_data.commit_to,
        commitCount: e.push_data.commit_count,
        commitTitle: e.push_data.commit_title,
        commits: e.data.commits.map((c) => ({ id: c.id })),
      }));
      assert.deepEqual(
        nodes.map((n) => n.payload),
        expected,
      );
      assert.equal(nodes.length, 5);
    });

    it("a guest's token: the push succeeds, the hook says why nothing was recorded, no event", async () => {
      const installed = await cli(['hook', 'install', bare], hookEnv(guestPusher));
      assert.equal(installed.status, 0, installed.stderr);
      const before = (await pushEvents()).length;
      const sha = commit('Pushed by a guest');
      const r = await push(['origin', 'HEAD:refs/heads/guest-branch']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(
        r.stderr,
        /remote: pulsegate: this push was NOT recorded: 403 Forbidden: the token's user may not push to alice\/app \(needs Developer access and a push token, scope write_repository\)/,
      );
      assert.equal(gitOk(['rev-parse', 'refs/heads/guest-branch'], bare), sha);
      assert.equal((await pushEvents()).length, before);

      // An unreachable server (a port just freed): also said, also harmless to the push.
      const closed = await new Promise<number>((done) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as { port: number };
          probe.close(() => done(port));
        });
      });
      await cli(['hook', 'install', bare], {
        ...hookEnv(pusher),
        PULSEGATE_URL: `http://127.0.0.1:${closed}`,
      });
      commit('Nobody listening');
      const down = await push(['origin', 'HEAD:refs/heads/guest-branch']);
      assert.equal(down.status, 0, down.stderr);
      assert.match(
        down.stderr,
        new RegExp(
          `remote: pulsegate: this push was NOT recorded: cannot reach http://127\\.0\\.0\\.1:${closed}: ECONNREFUSED`,
        ),
      );
    });

    it('the hook run directly: exit 1 with the reason on a refusal or bad input, 0 and silent for refs it does not report', async () => {
      const head = gitOk(['rev-parse', 'refs/heads/main'], bare);
      const line = `${ZERO} ${head} refs/heads/direct\n`;
      const before = (await pushEvents()).length;
      const refused = await hook(line, hookEnv(guestPusher));
      assert.deepEqual(refused, {
        status: 1,
        stdout: '',
        stderr:
          "pulsegate: this push was NOT recorded: 403 Forbidden: the token's user may not push to alice/app (needs Developer access and a push token, scope write_repository)\n",
      });
      // A hook that still holds an api token (installed before push tokens) records nothing.
      const api = await hook(line, hookEnv(developer));
      assert.deepEqual(api, {
        status: 1,
        stdout: '',
        stderr:
          'pulsegate: this push was NOT recorded: PULSEGATE_TOKEN is not a push token: recording a push takes scope write_repository (run hook install again with one)\n',
      });
      const unknown = await hook(line, hookEnv(pusher, 'alice/nothing'));
      assert.equal(unknown.status, 1);
      assert.equal(
        unknown.stderr,
        "pulsegate: this push was NOT recorded: 404 Project Not Found: no project alice/nothing visible to the token's user\n",
      );
      const garbage = await hook('not a ref update\n', hookEnv(pusher));
      assert.equal(garbage.status, 1);
      assert.equal(
        garbage.stderr,
        'pulsegate: this push was NOT recorded: unexpected input line (not "oldrev newrev ref"): not a ref update\n',
      );
      const notes = await hook(`${ZERO} ${head} refs/notes/commits\n`, hookEnv(pusher));
      assert.deepEqual(notes, { status: 0, stdout: '', stderr: '' });
      assert.equal((await pushEvents()).length, before);
      const ok = await hook(line, hookEnv(pusher));
      assert.equal(ok.status, 0, ok.stderr);
      const event = (await pushEvents()).at(-1)!;
      assert.equal(
        ok.stdout,
        `pulsegate: recorded event ${event.id}: pushed new branch direct (0 commits)\n`,
      );
      // Every commit of main is reachable from another ref (main itself): none are new.
      assert.equal(event.push_data.commit_count, 0);
    });

    it('a 503 is retried once with the same Idempotency-Key; the push is recorded once', async () => {
      const keys: string[] = [];
      const proxy = createHttpServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          keys.push(String(req.headers['idempotency-key']));
          if (keys.length === 1) {
            res.writeHead(503, { 'content-type': 'application/json' });
            return res.end('{"message":"503 Service Unavailable"}');
          }
          void fetch(`${server.url}${req.url}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'private-token': String(req.headers['private-token']),
              'idempotency-key': String(req.headers['idempotency-key']),
            },
            body: Buffer.concat(chunks),
          }).then(async (answer) => {
            res.writeHead(answer.status, { 'content-type': 'application/json' });
            res.end(await answer.text());
          });
        });
      });
      await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
      try {
        const { port } = proxy.address() as { port: number };
        const head = gitOk(['rev-parse', 'refs/heads/main'], bare);
        const before = (await pushEvents()).length;
        const r = await hook(`${ZERO} ${head} refs/tags/retried\n`, {
          ...hookEnv(pusher),
          PULSEGATE_URL: `http://127.0.0.1:${port}`,
        });
        assert.equal(r.status, 0, r.stderr);
        assert.equal(keys.length, 2);
        assert.match(keys[0]!, /^pulsegate-hook-[0-9a-f-]{36}-0$/);
        assert.equal(keys[1], keys[0]);
        const events = await pushEvents();
        assert.equal(events.length, before + 1);
        assert.equal(events.at(-1)!.push_data.ref, 'retried');
      } finally {
        await new Promise((done) => proxy.close(done));
      }
    });

    const valid = (extra: Record<string, unknown> = {}) => ({
      before: ZERO,
      after: 'a'.repeat(40),
      ref: 'refs/heads/api',
      commits: [
        {
          id: 'a'.repeat(40),
          message: 'Add the API\n',
          timestamp: '2026-01-10T09:30:00Z',
          author: { name: 'Alice', email: 'alice@example.com' },
        },
      ],
      total_commits_count: 1,
      ...extra,
    });
    const post = (body: unknown, token?: string, id: number | string = projectId) =>
      call(server.url, `/api/v4/projects/${id}/pushes`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { 'private-token': token } : {}),
        },
        body: JSON.stringify(body),
      });

    it('the endpoint: 201 with the events; 401, 403 (scope, role), 404 with GitLab bodies', async () => {
      const ok = await post(
        { changes: [valid(), valid({ ref: 'refs/tags/v2', commits: [], total_commits_count: 0 })] },
        pusher,
        'alice%2Fapp',
      );
      assert.equal(ok.status, 201, ok.text);
      const body = ok.body as { project_id: number; events: Array<{ id: number }> };
      assert.equal(body.project_id, projectId);
      assert.deepEqual(
        body.events.map((e) => ({ ...e, id: 0 })),
        [
          {
            id: 0,
            action_name: 'pushed new',
            push_data: {
              commit_count: 1,
              action: 'created',
              ref_type: 'branch',
              commit_from: null,
              commit_to: 'a'.repeat(40),
              ref: 'api',
              commit_title: 'Add the API',
              ref_count: null,
            },
          },
          {
            id: 0,
            action_name: 'pushed new',
            push_data: {
              commit_count: 0,
              action: 'created',
              ref_type: 'tag',
              commit_from: null,
              commit_to: 'a'.repeat(40),
              ref: 'v2',
              commit_title: null,
              ref_count: null,
            },
          },
        ],
      );
      assert.deepEqual(
        (await pushEvents()).slice(-2).map((e) => e.id),
        body.events.map((e) => e.id),
      );

      const anonymous = await post({ changes: [valid()] });
      assert.equal(anonymous.status, 401);
      assert.deepEqual(anonymous.body, { message: '401 Unauthorized' });
      // Only a push token records a push: not `api` (docs/pushes.md), nor a read scope.
      for (const token of [reader, developer, guest]) {
        const scope = await post({ changes: [valid()] }, token);
        assert.equal(scope.status, 403);
        assert.deepEqual(scope.body, {
          error: 'insufficient_scope',
          error_description:
            'The request requires higher privileges than provided by the access token.',
          scope: 'write_repository',
        });
      }
      const role = await post({ changes: [valid()] }, guestPusher);
      assert.equal(role.status, 403);
      assert.deepEqual(role.body, { message: '403 Forbidden' });
      // A private project is not found for a non-member, whatever they send.
      const hidden = await post({ changes: [valid()] }, guestPusher, privateId);
      assert.equal(hidden.status, 404);
      assert.deepEqual(hidden.body, { message: '404 Project Not Found' });
      const unknown = await post({ changes: [valid()] }, pusher, 'nobody%2Fnothing');
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Project Not Found' });
    });

    it('a push token reaches nothing else: REST reads and writes, GraphQL, feeds', async () => {
      const refused = {
        error: 'insufficient_scope',
        error_description:
          'The request requires higher privileges than provided by the access token.',
      };
      for (const [method, path, body, scope] of [
        ['GET', `/api/v4/projects/${projectId}/events`, undefined, 'api read_api'],
        ['GET', `/api/v4/projects/${projectId}`, undefined, 'api read_api'],
        ['GET', '/api/v4/events', undefined, 'read_user api read_api'],
        ['GET', '/api/v4/user', undefined, 'read_user api read_api'],
        ['POST', `/api/v4/projects/${projectId}/issues`, { title: 'Forged' }, 'api read_api'],
        ['POST', '/api/v4/projects', { path: 'forged' }, 'api read_api'],
      ] as const) {
        const r = await call(server.url, path, {
          method,
          headers: { 'private-token': pusher, 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
        assert.deepEqual(r.body, { ...refused, scope }, `${method} ${path}`);
      }
      const issues = await get(server.url, `/api/v4/projects/${projectId}/issues`, developer);
      assert.deepEqual(issues.body, []);

      const gql = await raw(
        server.url,
        `{ currentUser { username } project(fullPath: "alice/app") { events { nodes { id } } } }`,
        undefined,
        { token: pusher },
      );
      assert.deepEqual(
        (gql.body.errors ?? []).map((e) => e.extensions?.code),
        ['FORBIDDEN', 'FORBIDDEN'],
      );
      const mutation = await raw(
        server.url,
        `mutation { createIssue(input: { projectPath: "alice/app", title: "Forged" }) { errors } }`,
        undefined,
        { token: pusher },
      );
      assert.deepEqual(
        (mutation.body.errors ?? []).map((e) => e.extensions?.code),
        ['FORBIDDEN'],
      );
      const feed = await get(server.url, '/alice/app.atom', pusher);
      assert.equal(feed.status, 403, feed.text);
    });

    it('a report retried with the same Idempotency-Key gets the first answer and records nothing again', async () => {
      const send = () =>
        call(server.url, `/api/v4/projects/${projectId}/pushes`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'private-token': pusher,
            'idempotency-key': 'pulsegate-hook-test-0',
          },
          body: JSON.stringify({ changes: [valid({ ref: 'refs/heads/idempotent' })] }),
        });
      const before = (await pushEvents()).length;
      const first = await send();
      assert.equal(first.status, 201, first.text);
      const again = await send();
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.text, first.text);
      assert.equal((await pushEvents()).length, before + 1);
    });

    it('bad bodies get exact Grape 400s', async () => {
      const cases: Array<[unknown, string]> = [
        [{}, 'changes is missing'],
        [[], 'changes is missing'],
        [{ changes: 'x' }, 'changes is invalid'],
        [{ changes: [] }, 'changes is expected to have length within 1 and 100'],
        [
          { changes: Array.from({ length: 101 }, () => valid()) },
          'changes is expected to have length within 1 and 100',
        ],
        [{ changes: [7] }, 'changes[0] is invalid'],
        [
          { changes: [valid({ before: 'A'.repeat(40), after: undefined, ref: 'refs/notes/x' })] },
          'changes[0][before] is invalid, changes[0][after] is missing, changes[0][ref] is invalid',
        ],
        [{ changes: [valid({ ref: 'refs/heads/a..b' })] }, 'changes[0][ref] is invalid'],
        [
          { changes: [valid({ total_commits_count: 1.5 })] },
          'changes[0][total_commits_count] is invalid',
        ],
        [
          {
            changes: [
              valid({
                commits: Array.from({ length: 21 }, () => valid().commits[0]),
                total_commits_count: 21,
              }),
            ],
          },
          'changes[0][commits] is expected to have length less than or equal to 20',
        ],
        [
          { changes: [valid({ total_commits_count: 2 })] },
          'changes[0][commits] must hold the newest 20 commits, or all of them when total_commits_count is smaller',
        ],
        [
          {
            changes: [
              valid({
                commits: [
                  {
                    ...valid().commits[0],
                    timestamp: '2026-02-30T00:00:00Z',
                    author: { name: 'x' },
                  },
                ],
              }),
            ],
          },
          'changes[0][commits][0][timestamp] is invalid, changes[0][commits][0][author][email] is missing',
        ],
        [
          {
            changes: [valid({ commits: [{ ...valid().commits[0], message: 'm'.repeat(10_001) }] })],
          },
          'changes[0][commits][0][message] is expected to have length less than or equal to 10000',
        ],
        [
          { changes: [valid({ after: ZERO })] },
          'changes[0][after] cannot be blank when before is blank',
        ],
        [
          { changes: [valid({ before: 'b'.repeat(40), after: ZERO })] },
          'changes[0][commits] must be empty when the ref is removed',
        ],
        [{ changes: [valid(), valid()] }, 'changes[1][ref] is duplicated'],
      ];
      for (const [body, error] of cases) {
        const r = await post(body, pusher);
        assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 200)} → ${r.text}`);
        assert.deepEqual(r.body, { error });
      }
      const notJson = await call(server.url, `/api/v4/projects/${projectId}/pushes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'private-token': pusher },
        body: '{"changes": [',
      });
      assert.equal(notJson.status, 400);
    });

    it('random bodies: corrupted ones 400 with the field named, valid ones mixed in 201 (property)', async () => {
      const hex = fc.stringMatching(/^[0-9a-f]{40}$/);
      const commitArb = fc.record({
        id: hex,
        message: fc.string({ maxLength: 200 }),
        timestamp: fc.constantFrom(
          '2026-01-10T09:30:00Z',
          '2025-12-31T23:59:59-05:30',
          '2024-02-29T00:00:00.123+14:00',
        ),
        author: fc.record({
          name: fc.string({ maxLength: 30 }),
          email: fc.string({ maxLength: 30 }),
        }),
      });
      const changeArb = fc
        .record({
          kind: fc.constantFrom('created', 'pushed', 'removed'),
          tag: fc.boolean(),
          name: fc.stringMatching(/^[a-z][a-z0-9-]{0,15}(\/[a-z0-9-]{1,10})?$/),
          before: hex,
          after: hex,
          commits: fc.array(commitArb, { maxLength: 20 }),
          extra: fc.nat(100),
        })
        .map((c) => {
          const commits = c.kind === 'removed' ? [] : c.commits;
          const total = commits.length < 20 ? commits.length : 20 + c.extra;
          return {
            before: c.kind === 'created' ? ZERO : c.before,
            after: c.kind === 'removed' ? ZERO : c.after,
            ref: `refs/${c.tag ? 'tags' : 'heads'}/${c.name}`,
            commits,
            total_commits_count: total,
          };
        });
      const corruptions: Array<[string, (c: Record<string, unknown>) => void]> = [
        ['[before] is invalid', (c) => void (c.before = 'g'.repeat(40))],
        ['[after] is missing', (c) => void delete c.after],
        ['[ref] is invalid', (c) => void (c.ref = `refs/remotes/${String(c.ref)}`)],
        ['[ref] is invalid', (c) => void (c.ref = `${String(c.ref)}.lock`)],
        ['[total_commits_count] is invalid', (c) => void (c.total_commits_count = -1)],
        ['[commits] is invalid', (c) => void (c.commits = {})],
      ];
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(changeArb, { minLength: 1, maxLength: 4, selector: (c) => c.ref }),
          fc.option(fc.tuple(fc.nat(3), fc.nat(corruptions.length - 1)), { nil: undefined }),
          async (changes, corruption) => {
            let expected: string | null = null;
            if (corruption) {
              const at = corruption[0] % changes.length;
              const [suffix, corrupt] = corruptions[corruption[1]]!;
              corrupt(changes[at] as unknown as Record<string, unknown>);
              expected = `changes[${at}]${suffix}`;
            }
            const r = await post({ changes }, pusher);
            if (expected === null) {
              assert.equal(r.status, 201, r.text);
              assert.equal((r.body as { events: unknown[] }).events.length, changes.length);
              accepted++;
            } else {
              assert.equal(r.status, 400, r.text);
              assert.ok(
                (r.body as { error: string }).error.includes(expected),
                `${expected} not in ${r.text}`,
              );
            }
          },
        ),
        { numRuns: 60 },
      );
      assert.ok(accepted > 0);
      // Anything at all as the body: never a 500.
      await fc.assert(
        fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (body) => {
          const r = await post({ changes: body }, pusher);
          assert.ok(r.status === 400 || r.status === 201, `${r.status} ${r.text}`);
        }),
        { numRuns: 60 },
      );
    });
  });
}
