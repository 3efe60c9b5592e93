/**
 * The deployment examples the README points at are checked by the tools that will read them:
 * `nginx -t` for examples/nginx/pulsegate.conf (CI installs Debian's nginx; locally the test is
 * skipped, saying why, when nginx is absent) and `systemd-analyze verify` for the systemd unit.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../cli/run.js';

/** The executable in PATH or in the sbin directories (Debian puts nginx in /usr/sbin). */
function which(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin'];
  return dirs
    .filter((dir) => dir.startsWith('/'))
    .map((dir) => join(dir, name))
    .find((path) => existsSync(path));
}

const work = mkdtempSync(join(tmpdir(), 'pulsegate-deploy-'));
after(() => rmSync(work, { recursive: true, force: true }));

const nginx = which('nginx');
const openssl = which('openssl');
const nginxSkip = !nginx
  ? 'nginx is not installed (apt-get install nginx; .ci/run installs it, so CI runs this)'
  : !openssl
    ? 'openssl is not installed (needed for a throwaway TLS certificate)'
    : false;

describe('examples/nginx/pulsegate.conf', () => {
  const example = readFileSync(join(ROOT, 'examples/nginx/pulsegate.conf'), 'utf8');

  it('passes nginx -t (inside a minimal main configuration)', { skip: nginxSkip }, () => {
    const cert = join(work, 'cert.pem');
    const key = join(work, 'key.pem');
    const gen = spawnSync(
      openssl!,
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=pulse.example.com',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(gen.status, 0, gen.stderr);
    const site = example
      .replace('/etc/letsencrypt/live/pulse.example.com/fullchain.pem', cert)
      .replace('/etc/letsencrypt/live/pulse.example.com/privkey.pem', key);
    assert.notEqual(site, example, 'the example names its certificate files');
    writeFileSync(join(work, 'pulsegate.conf'), site);
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
      .map((kind) => `  ${kind}_temp_path ${join(work, kind)};`)
      .join('\n');
    writeFileSync(
      join(work, 'nginx.conf'),
      `pid ${join(work, 'nginx.pid')};\nerror_log stderr;\nevents {}\nhttp {\n${temp}\n  access_log off;\n  include ${join(work, 'pulsegate.conf')};\n}\n`,
    );
    const run = spawnSync(nginx!, ['-t', '-p', work, '-c', join(work, 'nginx.conf')], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /test is successful/);
    assert.doesNotMatch(run.stderr, /\[(warn|emerg|alert|crit)\]/, run.stderr);
  });

  it('keeps /-/metrics and /-/readiness off the public side', () => {
    assert.match(example, /location = \/-\/metrics \{\s*return 404;\s*\}/);
    assert.match(example, /location = \/-\/readiness \{\s*return 404;\s*\}/);
  });
});

describe('examples/systemd/pulsegate.service', () => {
  const analyze = which('systemd-analyze');
  it(
    'passes systemd-analyze verify (paths pointed at this checkout)',
    { skip: analyze ? false : 'systemd-analyze is not installed (Debian: systemd)' },
    () => {
      const unit = readFileSync(join(ROOT, 'examples/systemd/pulsegate.service'), 'utf8');
      assert.match(
        unit,
        /^ExecStart=\/usr\/bin\/node \/opt\/pulsegate\/bin\/pulsegate\.js serve$/m,
      );
      assert.match(unit, /^KillSignal=SIGTERM$/m);
      // verify checks that ExecStart's program exists: point it at this node and this checkout.
      const local = unit
        .replaceAll('/usr/bin/node', process.execPath)
        .replaceAll('/opt/pulsegate', ROOT.replace(/\/$/, ''));
      const path = join(work, 'pulsegate.service');
      writeFileSync(path, local);
      const run = spawnSync(analyze!, ['verify', path], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      // verify reports unknown settings and bad values as warnings with exit code 0.
      assert.equal(
        run.stderr
          .split('\n')
          .filter((line) => line.includes('pulsegate.service'))
          .join('\n'),
        '',
      );
    },
  );
});
