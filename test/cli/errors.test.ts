/**
 * Errors as a user meets them on the command line: one plain line saying what failed and what to
 * do, the right exit code, no stack trace, and nothing left behind by a refused command.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../../src/config.js';
import { pulsegate, pulsegateIntoHead, serving } from './run.js';

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

  it('a SQLite path that cannot be a database is one line naming the path and the fix, exit 1', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory\n');
    const fix = 'with --database-url sqlite:<path> (or DATABASE_URL).';
    const cases: [string, string][] = [
      [
        join(file, 'x.db'),
        `${file} is a file, not a directory. Choose a path in a directory ${fix}`,
      ],
      [
        join(file, 'deeper', 'x.db'),
        `${file} is a file, not a directory. Choose a path in a directory ${fix}`,
      ],
      [dir, `it is a directory. Name a file ${fix}`],
      [file, `it is not a SQLite database. Move it away, or choose another file ${fix}`],
      // Not writable, even by root.
      [
        '/proc/pulsegate.db',
        `/proc is not writable by this user. Make it writable, or choose another file ${fix}`,
      ],
    ];
    for (const [path, why] of cases) {
      for (const args of [['export'], ['migrate'], ['serve', '--port', '0']]) {
        const run = await pulsegate([...args, '--database-url', `sqlite:${path}`]);
        assert.equal(run.code, 1, `${args[0]} ${path}: ${run.stderr}`);
        assert.equal(run.stderr, `pulsegate: cannot open the SQLite database ${path}: ${why}\n`);
        assert.equal(run.stdout, '');
      }
    }
  });

  it('a bad configuration value is one line naming the flag, its variable and what it takes, exit 1', async () => {
    const db = join(dir, 'config.db');
    const cases: [string[], Record<string, string>, string][] = [
      [['--port', 'abc'], {}, '--port (or PORT) must be an integer from 0 to 65535, not abc'],
      [[], { PORT: '70000' }, '--port (or PORT) must be an integer from 0 to 65535, not 70000'],
      [
        ['--log-format', 'yaml'],
        {},
        '--log-format (or PULSEGATE_LOG_FORMAT) must be pretty or json, not yaml',
      ],
      [
        [],
        { LOG_LEVEL: 'loud' },
        '--log-level (or LOG_LEVEL) must be one of fatal, error, warn, info, debug, trace, silent, not loud',
      ],
      [
        ['--external-url', 'pulse.example.com'],
        {},
        '--external-url (or PULSEGATE_EXTERNAL_URL) must be a URL such as https://pulse.example.com: pulse.example.com',
      ],
      [
        [],
        { DATABASE_URL: 'mysql://x' },
        '--database-url (or DATABASE_URL) must be sqlite:<path> or postgres://…, not mysql://x',
      ],
      [['--workers', 'many'], {}, '--workers must be auto or an integer from 1 to 256, got many'],
      ...['3', '3w', '-1y', '1.5y', 'y', '0d', '99999y'].map(
        (value) =>
          [
            ['--retain-events', value],
            {},
            `--retain-events (or PULSEGATE_RETAIN_EVENTS) must be a number of days, months or years such as 90d, 18m or 3y, or 0 to keep every event: ${value}`,
          ] as (typeof cases)[number],
      ),
      [
        [],
        { PULSEGATE_RETAIN_EVENTS: 'forever' },
        '--retain-events (or PULSEGATE_RETAIN_EVENTS) must be a number of days, months or years such as 90d, 18m or 3y, or 0 to keep every event: forever',
      ],
      [
        [],
        { PULSEGATE_PRUNE_BATCH_SIZE: '0' },
        'PULSEGATE_PRUNE_BATCH_SIZE must be a whole number of events from 1 to 100000: 0',
      ],
    ];
    for (const [args, env, message] of cases) {
      const run = await pulsegate(
        ['serve', ...(env.DATABASE_URL ? [] : ['--database-url', `sqlite:${db}`]), ...args],
        undefined,
        env,
      );
      assert.equal(run.code, 1, `${message}: ${run.stderr}`);
      assert.equal(run.stderr, `pulsegate: ${message}\n`);
    }
    assert.equal(existsSync(db), false);
  });

  it('an empty variable is not set: the default applies', async () => {
    const db = join(dir, 'empty-env.db');
    const run = await pulsegate(['migrate', '--database-url', `sqlite:${db}`], undefined, {
      LOG_LEVEL: '',
      PORT: '',
      HOST: '',
      PULSEGATE_EXTERNAL_URL: '',
      PULSEGATE_LOG_FORMAT: '',
      PULSEGATE_SHUTDOWN_TIMEOUT: '',
      PULSEGATE_RATE_LIMIT: '',
      PULSEGATE_GRAPHQL_ENGINE: '',
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^applied: /);
    const config = loadConfig({}, { DATABASE_URL: '', PORT: '', LOG_LEVEL: '' }, false);
    assert.equal(config.databaseUrl, `sqlite:${resolve('data/pulsegate.db')}`);
    assert.equal(config.port, 3000);
    assert.equal(config.logLevel, 'info');
  });

  it('a taken port is one line saying which and how to choose another, exit 1', async () => {
    const taken = net.createServer(() => {});
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const { port } = taken.address() as net.AddressInfo;
    const line =
      `pulsegate: port ${port} is already in use (127.0.0.1:${port}): another pulsegate may be` +
      ' running there. Stop it, or choose another port with --port N (or PORT=N).';
    try {
      const db = `sqlite:${join(dir, 'port.db')}`;
      const run = await pulsegate(['serve', '--port', String(port), '--database-url', db]);
      assert.equal(run.code, 1);
      assert.equal(run.stderr, `${line}\n`);
      // With workers, each says so (once per worker) and the whole exits 1 rather than waiting.
      const workers = await pulsegate(
        ['serve', '--workers', '2', '--port', String(port), '--database-url', db],
        undefined,
        {},
        60_000,
      );
      assert.equal(workers.code, 1, workers.stderr);
      assert.deepEqual([...new Set(workers.stderr.trimEnd().split('\n'))], [line]);
    } finally {
      taken.close();
    }
  });

  it('a second npm start on a taken port leaves the running server and its demo token alone', async () => {
    const db = `sqlite:${join(dir, 'two-starts.db')}`;
    const first = await serving(['--demo', '--port', '0', '--database-url', db], {}, (out) =>
      /^ {2}glpat-/m.test(out),
    );
    try {
      const token = /^ {2}(glpat-\S+)$/m.exec(first.output().stdout)![1]!;
      const second = await pulsegate(
        ['serve', '--demo', '--port', String(first.port), '--database-url', db],
        undefined,
        { LOG_LEVEL: 'info' },
      );
      assert.equal(second.code, 1);
      assert.equal(
        second.stderr,
        `pulsegate: port ${first.port} is already in use (127.0.0.1:${first.port}): another` +
          ' pulsegate may be running there. Stop it, or choose another port with --port N (or PORT=N).\n',
      );
      assert.doesNotMatch(second.stdout, /glpat-/);
      const me = await fetch(`http://127.0.0.1:${first.port}/api/v4/user`, {
        headers: { 'PRIVATE-TOKEN': token },
      });
      assert.equal(me.status, 200, "the running server's demo token still works");
      assert.equal(((await me.json()) as { username: string }).username, 'alice');
    } finally {
      await first.stop();
    }
  });

  it('an unexpected failure is its message without a stack, unless the log level is debug', async () => {
    // A bookkeeping table of migrations unlike the migrator's own: nothing anyone foresaw.
    const path = join(dir, 'odd.db');
    const odd = new SQLite(path);
    odd.exec('CREATE TABLE kysely_migration (x INTEGER)');
    odd.close();
    const plain = await pulsegate(['migrate', '--database-url', `sqlite:${path}`]);
    assert.equal(plain.code, 1);
    assert.doesNotMatch(plain.stderr, NO_STACK);
    assert.match(
      plain.stderr,
      /^pulsegate: [^\n]+\n\(run with --log-level debug, or LOG_LEVEL=debug, to see where\)\n$/,
    );
    for (const [args, env] of [
      [['migrate', '--log-level', 'debug'], {}],
      [['migrate'], { LOG_LEVEL: 'debug' }],
      [['export', '--log-level=debug'], {}],
    ] as const) {
      const debug = await pulsegate([...args, '--database-url', `sqlite:${path}`], undefined, env);
      assert.equal(debug.code, 1, args.join(' '));
      assert.match(debug.stderr, NO_STACK, args.join(' '));
    }
  });

  it('signing keys sealed with another key-encryption key: one line, exit 1', async () => {
    const db = `sqlite:${join(dir, 'sealed.db')}`;
    const sealed = await pulsegate(['keys', 'rotate', '--database-url', db], undefined, {
      PULSEGATE_KEY_ENCRYPTION_KEY: 'a'.repeat(32),
    });
    assert.equal(sealed.code, 0, sealed.stderr);
    const run = await pulsegate(['serve', '--port', '0', '--database-url', db], undefined, {
      PULSEGATE_KEY_ENCRYPTION_KEY: 'b'.repeat(32),
    });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^pulsegate: signing key \S+ cannot be decrypted: wrong key-encryption key\n$/,
    );
  });

  it('a failed import names an unknown field with its line and leaves no database behind', async () => {
    const file = join(dir, 'typo.ndjson');
    writeFileSync(
      file,
      [
        { kind: 'user', id: 1, username: 'alice', name: 'Alice', email: 'alice@example.com' },
        { kind: 'user', id: 2, usename: 'bob', name: 'Bob', email: 'bob@example.com' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const target = join(dir, 'fresh', 'import.db');
    const run = await pulsegate(['import', file, '--database-url', `sqlite:${target}`]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      'pulsegate: import failed, nothing was written:\n' +
        'line 2: unknown field "usename" for kind user, and "username" is missing\n',
    );
    assert.equal(
      existsSync(join(dir, 'fresh')),
      false,
      String(existsSync(join(dir, 'fresh')) && readdirSync(join(dir, 'fresh'))),
    );
    // Into a database that was there before, the file stays (and holds what it held).
    const before = join(dir, 'before.db');
    assert.equal((await pulsegate(['migrate', '--database-url', `sqlite:${before}`])).code, 0);
    const again = await pulsegate(['import', file, '--database-url', `sqlite:${before}`]);
    assert.equal(again.code, 1);
    assert.ok(existsSync(before));
  });
});
