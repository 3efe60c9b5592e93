/**
 * The whole path of a push, for real: `git push` into a bare repository whose post-receive hook
 * `pulsegate hook install` wrote → the push endpoint → the push event and, in the same
 * transaction, the outbox row → the project's webhook receives GitLab's Push Hook with the
 * commits git made, its token and headers; a tag push arrives as a Tag Push Hook.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { Fixtures } from '../helpers/fixtures.js';
import { gitSandbox } from '../helpers/git-sandbox.js';
import { call } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { Receiver } from './receiver.js';

const BIN = resolve('bin/pulsegate.js');

for (const dialect of DIALECTS) {
  describe(`webhooks from real git pushes (${dialect})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let dir: string;
    let work: string;
    let env: NodeJS.ProcessEnv;
    let token: string;
    /** The hook's token: scope write_repository, which records pushes and nothing else. */
    let pushToken: string;

    const gitOk = (args: string[], cwd: string) => {
      const r = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
      assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
      return r.stdout.trim();
    };
    /** `git push` runs the hook, which calls this process's server: never block the loop. */
    const push = (args: string[]) =>
      new Promise<{ status: number | null; stderr: string }>((done, fail) => {
        const child = spawn('git', ['push', '-q', ...args], { cwd: work, env });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        child.on('error', fail);
        child.on('close', (status) => done({ status, stderr }));
      });

    before(async () => {
      receiver = await new Receiver().listen();
      server = await startServer({
        dialect,
        config: { webhooksAllowLocal: true },
        seed: async (store) => {
          const f = new Fixtures(store);
          const alice = await f.user('alice', { name: 'Alice Moreau' });
          const project = await f.project('alice/app', alice.id, 'private');
          await f.member(project.id, alice.id, ACCESS_LEVELS.maintainer);
          token = await f.token(alice.id, ['api']);
          pushToken = await f.token(alice.id, ['write_repository']);
        },
      });
      const hook = await call(server.url, '/api/v4/projects/alice%2Fapp/hooks', {
        method: 'POST',
        headers: { 'private-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: `${receiver.url}/ci`,
          token: 'push-secret',
          push_events: true,
          tag_push_events: true,
        }),
      });
      assert.equal(hook.status, 201, hook.text);

      ({ dir, env } = gitSandbox('pulsegate-hook-push-'));
      const bare = join(dir, 'app.git');
      work = join(dir, 'work');
      gitOk(['init', '-q', '--bare', bare], dir);
      // Install asks this process's server about the token: never block the loop either.
      const install = await new Promise<{ status: number | null; stderr: string }>((done, fail) => {
        const child = spawn(process.execPath, [BIN, 'hook', 'install', bare], {
          env: {
            ...env,
            PULSEGATE_URL: server.url,
            PULSEGATE_TOKEN: pushToken,
            PULSEGATE_PROJECT: 'alice/app',
          },
        });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        child.on('error', fail);
        child.on('close', (status) => done({ status, stderr }));
      });
      assert.equal(install.status, 0, install.stderr);
      gitOk(['clone', '-q', bare, work], dir);
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('delivers a branch push with the commits git made, and a tag push', async () => {
      const shas: string[] = [];
      for (const message of ['First light', 'Second light']) {
        writeFileSync(join(work, 'file.txt'), `${message}\n`);
        gitOk(['add', 'file.txt'], work);
        gitOk(['commit', '-q', '-m', message], work);
        shas.push(gitOk(['rev-parse', 'HEAD'], work));
      }
      const pushed = await push(['origin', 'main']);
      assert.equal(pushed.status, 0, pushed.stderr);
      assert.doesNotMatch(pushed.stderr, /NOT recorded/);
      await receiver.waitFor(1);
      const [delivery] = receiver.received;
      assert.equal(delivery!.url, '/ci');
      assert.equal(delivery!.headers['x-gitlab-event'], 'Push Hook');
      assert.equal(delivery!.headers['x-gitlab-token'], 'push-secret');
      assert.equal(delivery!.headers['content-type'], 'application/json');
      assert.match(String(delivery!.headers['idempotency-key']), /^[0-9a-f-]{36}$/);
      const body = delivery!.body as {
        object_kind: string;
        ref: string;
        before: string;
        after: string;
        total_commits_count: number;
        commits: { id: string; message: string }[];
        user_username: string;
      };
      assert.equal(body.object_kind, 'push');
      assert.equal(body.ref, 'refs/heads/main');
      assert.equal(body.before, '0'.repeat(40));
      assert.equal(body.after, shas[1]);
      assert.equal(body.total_commits_count, 2);
      assert.deepEqual(
        body.commits.map((c) => [c.id, c.message.trim()]),
        [
          [shas[0], 'First light'],
          [shas[1], 'Second light'],
        ],
      );
      assert.equal(body.user_username, 'alice');

      gitOk(['tag', 'v1.0'], work);
      const tagged = await push(['origin', 'v1.0']);
      assert.equal(tagged.status, 0, tagged.stderr);
      await receiver.waitFor(2);
      const tag = receiver.received[1]!;
      assert.equal(tag.headers['x-gitlab-event'], 'Tag Push Hook');
      assert.equal((tag.body as { object_kind: string }).object_kind, 'tag_push');
      assert.equal((tag.body as { ref: string }).ref, 'refs/tags/v1.0');
    });
  });
}
