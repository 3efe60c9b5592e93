import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../src/domain/secrets.js';
import { type TestServer, startServer } from '../helpers/server.js';
import { pulsegate } from './run.js';

describe('pulsegate data commands', () => {
  let server: TestServer;
  let db: string;
  let dir: string;

  before(async () => {
    server = await startServer();
    db = server.config.databaseUrl;
    dir = mkdtempSync(join(tmpdir(), 'pulsegate-cli-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('users create hashes the password read from stdin; a taken username exits 2', async () => {
    const run = await pulsegate(
      [
        'users',
        'create',
        '--username',
        'zoe',
        '--email',
        'zoe@example.com',
        '--name',
        'Zoe Example',
        '--password-stdin',
        '--admin',
        '--database-url',
        db,
      ],
      'correct horse battery\n',
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^created user zoe \(id \d+, admin\)\n$/);
    const zoe = await server.store.users.byUsername('zoe');
    assert.equal(zoe!.admin, 1);
    assert.ok(await verifyPassword('correct horse battery', zoe!.password_hash));

    const again = await pulsegate([
      'users',
      'create',
      '--username',
      'ZOE',
      '--email',
      'z2@example.com',
      '--name',
      'Z',
      '--password',
      'long enough',
      '--database-url',
      db,
    ]);
    assert.equal(again.code, 2);
    assert.equal(again.stderr, 'pulsegate: username has already been taken\n');
  });

  it('tokens create prints a token (once) that the API accepts with its scopes', async () => {
    const run = await pulsegate([
      'tokens',
      'create',
      '--user',
      'zoe',
      '--name',
      'ci',
      '--scopes',
      'read_user',
      '--expires-at',
      '2099-12-31',
      '--database-url',
      db,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const token = run.stdout.trim();
    assert.match(token, /^glpat-[A-Za-z0-9_-]{27,}$/);
    assert.match(
      run.stderr,
      /personal access token "ci" for zoe \(scopes read_user, expires 2099-12-31\)/,
    );
    const me = await fetch(`${server.url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': token } });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { username: string }).username, 'zoe');
    const project = await fetch(`${server.url}/api/v4/projects/1/events`, {
      headers: { 'PRIVATE-TOKEN': token },
    });
    assert.equal(project.status, 403, 'read_user does not reach project events');
  });

  it('bad arguments exit 2 with a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['tokens', 'create', '--user', 'zoe', '--name', 'x', '--scopes', 'sudo'],
        /^pulsegate: scopes has unknown scope sudo\n$/,
      ],
      [
        ['tokens', 'create', '--user', 'nobody', '--name', 'x', '--scopes', 'api'],
        /^pulsegate: no user named nobody\n$/,
      ],
      [
        ['seed', '--events', 'many'],
        /^pulsegate: --events must be a whole number of at least 0: many\n$/,
      ],
      [['import'], /^pulsegate: import needs a file/],
    ];
    for (const [args, message] of cases) {
      const run = await pulsegate([...args, '--database-url', db]);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.stderr, message);
    }
  });

  it('seed, export and import: summaries, no progress without a terminal, line numbers on errors', async () => {
    const seeded = await pulsegate([
      'seed',
      '--events',
      '40',
      '--users',
      '3',
      '--projects',
      '2',
      '--database-url',
      db,
    ]);
    assert.equal(seeded.code, 0, seeded.stderr);
    assert.match(
      seeded.stdout,
      /^seeded \d+ records in [\d.]+ s \([\d,]+ records\/s\): user 3, project 2, .*event 40\n$/,
    );
    assert.equal(seeded.stderr, '', 'no progress output when stderr is not a terminal');

    const file = join(dir, 'export.ndjson');
    const exported = await pulsegate(['export', file, '--database-url', db]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /^exported \d+ records/);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.equal(lines.filter((l) => l.startsWith('{"kind":"event"')).length, 40);
    assert.ok(!readFileSync(file, 'utf8').includes('glpat-'), 'only digests leave the database');
    const twice = await pulsegate(['export', file, '--database-url', db]);
    assert.equal(twice.code, 2);

    const bad = join(dir, 'bad.ndjson');
    writeFileSync(
      bad,
      [lines[0], '{"kind":"member","project_id":99,"user_id":1,"access_level":30}'].join('\n'),
    );
    const failed = await pulsegate([
      'import',
      bad,
      '--database-url',
      `sqlite:${join(dir, 'fresh.db')}`,
    ]);
    assert.equal(failed.code, 1);
    assert.equal(
      failed.stderr,
      'pulsegate: import failed, nothing was written:\nline 2: project_id 99 is not a known project\n',
    );

    const imported = await pulsegate([
      'import',
      file,
      '--database-url',
      `sqlite:${join(dir, 'fresh.db')}`,
    ]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, new RegExp(`^imported ${lines.length} records`));
    assert.ok(existsSync(join(dir, 'fresh.db')));
  });
});
