/**
 * Errors as a user meets them on the command line: one plain line saying what failed and what to
 * do, the right exit code, no stack trace, and nothing left behind by a refused command.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pulsegate, pulsegateIntoHead } from './run.js';

const NO_STACK = /^\s+at /m;

describe('command-line errors', () => {
  let dir: string;
  let demo: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pulsegate-cli-errors-'));
    demo = `sqlite:${join(dir, 'demo.db')}`;
    const seeded = await pulsegate(['seed', '--database-url', demo]);
    assert.equal(seeded.code, 0, seeded.stderr);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('export | head stops quietly when the reader goes away, exit 0', async () => {
    const run = await pulsegateIntoHead(['export', '--database-url', demo], 1000);
    assert.ok(run.stdout.startsWith('{"kind":"user"'), run.stdout.slice(0, 80));
    assert.equal(run.stderr, '');
    assert.equal(run.code, 0);
  });

  it('an unreachable PostgreSQL is one plain line and exit 1', async () => {
    const run = await pulsegate(['export', '--database-url', 'postgres://127.0.0.1:1/x']);
    assert.equal(run.code, 1);
    assert.doesNotMatch(run.stderr, NO_STACK);
    assert.equal(
      run.stderr,
      'pulsegate: cannot connect to PostgreSQL at 127.0.0.1:1: connection refused.' +
        ' Is the server running there, and is --database-url (or DATABASE_URL) right?\n',
    );
    assert.equal(run.stdout, '');
  });

  it('a PostgreSQL that never answers times out in about 10 s with one plain line, exit 1', async () => {
    // A loopback listener that accepts and never speaks: what a black-holed host looks like.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const started = Date.now();
      const run = await pulsegate(['export', '--database-url', `postgres://127.0.0.1:${port}/x`]);
      assert.ok(Date.now() - started < 30_000);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr,
        `pulsegate: cannot connect to PostgreSQL at 127.0.0.1:${port}: the connection timed out.` +
          ' Check the address and any firewall between.\n',
      );
    } finally {
      silent.close();
    }
  });

  it(
    'a PostgreSQL database that does not exist is one plain line naming it, exit 1',
    { skip: !process.env.PULSEGATE_TEST_POSTGRES_URL && 'needs PULSEGATE_TEST_POSTGRES_URL' },
    async () => {
      const url = new URL(process.env.PULSEGATE_TEST_POSTGRES_URL!);
      const name = `missing_${randomBytes(4).toString('hex')}`;
      url.pathname = `/${name}`;
      const run = await pulsegate(['migrate', '--database-url', url.toString()]);
      assert.equal(run.code, 1);
      assert.doesNotMatch(run.stderr, NO_STACK);
      assert.equal(run.stderr.split('\n').length, 2, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(`^pulsegate: PostgreSQL at .+ has no database "${name}"`),
      );
      assert.match(run.stderr, new RegExp(`createdb ${name}`));
    },
  );

  it('a refused command creates no SQLite file', async () => {
    const db = join(dir, 'never.db');
    const refused = [
      ['seed', '--events', 'many'],
      ['seed', '--users', '0'],
      [
        'users',
        'create',
        '--username',
        'zoe',
        '--email',
        'nope',
        '--name',
        'Z',
        '--password',
        'long enough',
      ],
      ['tokens', 'create', '--user', 'zoe', '--name', 'ci', '--scopes', 'sudo'],
      [
        'tokens',
        'create',
        '--user',
        'zoe',
        '--name',
        'ci',
        '--scopes',
        'api',
        '--expires-at',
        '2020-02-30',
      ],
    ];
    for (const args of refused) {
      const run = await pulsegate([...args, '--database-url', `sqlite:${db}`]);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(existsSync(db), false, `${args.join(' ')} created ${db}`);
    }
  });

  it('seed --events -5 gets the plain message', async () => {
    const run = await pulsegate(['seed', '--events', '-5', '--database-url', demo]);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'pulsegate: --events must be a whole number of at least 0: -5\n');
  });

  it('importing into a database that holds the same data says so once', async () => {
    const file = join(dir, 'demo.ndjson');
    const exported = await pulsegate(['export', file, '--database-url', demo]);
    assert.equal(exported.code, 0, exported.stderr);
    const run = await pulsegate(['import', file, '--database-url', demo]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      'pulsegate: import failed, nothing was written:\n' +
        'line 1: user 1 already exists, and so do the records on at least 19 more lines:' +
        ' the database is not empty (import into an empty database)\n',
    );
  });
});
