/**
 * The command line helps: `--help` on every command prints its usage and exits 0 having done
 * nothing else (no database file, no port, no token); `--version`; an unknown command or option
 * says which, with the usage, exit 2.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, pulsegate } from './run.js';

const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** Every command as typed, and the name its usage starts with. */
const COMMANDS: [string[], string][] = [
  [['serve'], 'serve'],
  [['migrate'], 'migrate'],
  [['users', 'create'], 'users create'],
  [['tokens', 'create'], 'tokens create'],
  [['seed'], 'seed'],
  [['import'], 'import'],
  [['export'], 'export'],
  [['keys'], 'keys'],
];

describe('pulsegate --help, --version, unknown commands and options', () => {
  let dir: string;
  let db: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pulsegate-help-'));
    db = join(dir, 'never.db');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('--help, -h and help <command> print the usage and exit 0, creating nothing', async () => {
    for (const [words, name] of COMMANDS) {
      for (const args of [
        [...words, '--help'],
        [...words, '--database-url', `sqlite:${db}`, '-h'],
        ['help', ...words],
      ]) {
        // Given what would otherwise start the work: a database, and for serve a demo and a port.
        const extra = name === 'serve' ? ['--demo', '--port', '0'] : [];
        // A serve that started anyway is stopped, and fails the test.
        const run = await pulsegate(
          [...args, ...extra],
          undefined,
          { DATABASE_URL: `sqlite:${db}` },
          20_000,
        );
        const what = args.join(' ');
        assert.equal(run.code, 0, `${what}: ${run.stderr}`);
        assert.equal(run.stderr, '', what);
        assert.ok(run.stdout.startsWith(`Usage: pulsegate ${name}`), `${what}: ${run.stdout}`);
        assert.match(run.stdout, /\n {2}-h, --help {16}Print this help and exit\n$/, what);
        assert.doesNotMatch(run.stdout, /Server listening|glpat-|loading the demo data/, what);
        assert.equal(existsSync(db), false, `${what} created ${db}`);
      }
    }
  });

  it("each command's usage lists the options it takes", async () => {
    const serve = await pulsegate(['serve', '--help']);
    for (const option of [
      '--demo',
      '--port N',
      '--host HOST',
      '--external-url URL',
      '--database-url URL',
      '--log-level LEVEL',
      '--log-format FORMAT',
      '--graphql-engine NAME',
      '--rate-limit N',
      '--key-encryption-key KEY',
      '--no-page-cache',
      '--workers N|auto',
      '--shutdown-timeout S',
      '--webhooks-allow-local',
      '--retain-events AGE',
    ]) {
      assert.match(serve.stdout, new RegExp(`\\n {2}${option.replace(/\|/g, '\\|')} `), option);
    }
    const tokens = await pulsegate(['tokens', 'create', '--help']);
    assert.equal(
      tokens.stdout.split('\n')[0],
      'Usage: pulsegate tokens create --user U --name N --scopes api,read_user [--expires-at YYYY-MM-DD]',
    );
  });

  it('hook --help and help hook print the hook usage', async () => {
    for (const args of [
      ['hook', '--help'],
      ['hook', 'install', '--help'],
      ['help', 'hook'],
    ]) {
      const run = await pulsegate(args);
      assert.equal(run.code, 0, args.join(' '));
      assert.match(run.stdout, /^Usage:\n {2}hook install <bare-repo>/, args.join(' '));
    }
    const unknown = await pulsegate(['hook', 'install', '--forse', '/nowhere']);
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /^pulsegate: unknown option --forse for hook\n\nUsage:\n {2}hook install/,
    );
  });

  it('pulsegate --help and help list the commands; pulsegate alone lists them on stderr, exit 2', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const run = await pulsegate(args);
      assert.equal(run.code, 0);
      assert.match(run.stdout, /^Usage: pulsegate <command> \[options\]\n\nCommands:\n {2}serve /);
      for (const [, name] of COMMANDS) assert.match(run.stdout, new RegExp(`\\n {2}${name} `));
    }
    const bare = await pulsegate([]);
    assert.equal(bare.code, 2);
    assert.equal(bare.stdout, '');
    assert.match(bare.stderr, /^Usage: pulsegate <command>/);
  });

  it('--version and -v print the package version', async () => {
    for (const flag of ['--version', '-v']) {
      const run = await pulsegate([flag]);
      assert.equal(run.code, 0);
      assert.equal(run.stdout, `pulsegate ${VERSION}\n`);
      assert.equal(run.stderr, '');
    }
  });

  it('an unknown option names itself and shows the usage, exit 2, creating nothing', async () => {
    const cases: [string[], string, string][] = [
      [
        ['tokens', 'create', '--user', 'zoe', '--bogus'],
        'unknown option --bogus for tokens create',
        'tokens create',
      ],
      [['serve', '--prot', '3000'], 'unknown option --prot for serve', 'serve'],
      [['migrate', '--port', '3000'], 'unknown option --port for migrate', 'migrate'],
      [['seed', '-x'], 'unknown option -x for seed', 'seed'],
      [['export', '--progress=yes'], '--progress takes no value', 'export'],
      [['users', 'create', '--username'], '--username needs a value', 'users create'],
      [['import', 'a.ndjson', 'b.ndjson'], 'unexpected argument: b.ndjson', 'import'],
      [['keys', 'spin'], 'unknown command: keys spin', 'keys'],
      [['tokens', 'delete'], 'unknown command: tokens delete', 'tokens create'],
    ];
    for (const [args, message, usage] of cases) {
      const run = await pulsegate([
        ...args.slice(0, 2),
        '--database-url',
        `sqlite:${db}`,
        ...args.slice(2),
      ]);
      const what = args.join(' ');
      assert.equal(run.code, 2, `${what}: ${run.stderr}`);
      assert.equal(run.stdout, '', what);
      assert.ok(
        run.stderr.startsWith(`pulsegate: ${message}\n\nUsage: pulsegate ${usage}`),
        `${what}: ${run.stderr}`,
      );
      assert.equal(existsSync(db), false, `${what} created ${db}`);
    }
  });

  it('an unknown command says which and lists the commands, exit 2', async () => {
    const run = await pulsegate(['frobnicate']);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /^pulsegate: unknown command: frobnicate\n\nUsage: pulsegate <command>/,
    );
    const help = await pulsegate(['help', 'frobnicate']);
    assert.equal(help.code, 2);
    assert.match(help.stderr, /^pulsegate: unknown command: frobnicate\n/);
  });
});
